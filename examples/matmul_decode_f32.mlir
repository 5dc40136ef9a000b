// A decode-step projection: 8 tokens x 1024 @ 1024 x 4096 (small M, weight-bandwidth bound).
func.func @main(%x: tensor<8x1024xf32>, %w: tensor<1024x4096xf32>) -> tensor<8x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x4096xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<8x4096xf32>) -> tensor<8x4096xf32>
  %r = linalg.matmul ins(%x, %w : tensor<8x1024xf32>, tensor<1024x4096xf32>) outs(%acc : tensor<8x4096xf32>) -> tensor<8x4096xf32>
  return %r : tensor<8x4096xf32>
}
