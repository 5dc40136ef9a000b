// Attention-score shaped batch matmul: 12 heads, 128 x 64 @ 64 x 128.
func.func @main(%a: tensor<12x128x64xf32>, %b: tensor<12x64x128xf32>) -> tensor<12x128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<12x128x128xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<12x128x64xf32>, tensor<12x64x128xf32>) outs(%acc : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
  return %r : tensor<12x128x128xf32>
}
