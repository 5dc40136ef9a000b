// An MLP up-projection in f16 with a transposed (N x K) weight and f32 accumulation: 128 x 768 @ (3072 x 768)^T.
func.func @main(%x: tensor<128x768xf16>, %w: tensor<3072x768xf16>) -> tensor<128x3072xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<128x3072xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
       ins(%x, %w : tensor<128x768xf16>, tensor<3072x768xf16>) outs(%acc : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  return %r : tensor<128x3072xf32>
}
