// A 3x3 convolution on a 56x56x64 feature map lowered to a matmul (im2col): 3136 x 576 @ 576 x 64.
func.func @main(%patches: tensor<3136x576xf32>, %filter: tensor<576x64xf32>) -> tensor<3136x64xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<3136x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<3136x64xf32>) -> tensor<3136x64xf32>
  %r = linalg.matmul ins(%patches, %filter : tensor<3136x576xf32>, tensor<576x64xf32>) outs(%acc : tensor<3136x64xf32>) -> tensor<3136x64xf32>
  return %r : tensor<3136x64xf32>
}
