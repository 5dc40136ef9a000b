// A projection-sized f32 matmul: 100 x 300 @ 300 x 1000.
func.func @main(%lhs: tensor<100x300xf32>, %rhs: tensor<300x1000xf32>) -> tensor<100x1000xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<100x1000xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<100x1000xf32>) -> tensor<100x1000xf32>
  %r = linalg.matmul ins(%lhs, %rhs : tensor<100x300xf32>, tensor<300x1000xf32>) outs(%acc : tensor<100x1000xf32>) -> tensor<100x1000xf32>
  return %r : tensor<100x1000xf32>
}
