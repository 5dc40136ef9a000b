// A ResNet-like 3x3 convolution, batch 2: 56x56x64 feature maps (padded to 58x58) to 64 channels, stride 1.
func.func @main(%input: tensor<2x58x58x64xf32>, %filter: tensor<3x3x64x64xf32>) -> tensor<2x56x56x64xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<2x56x56x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<2x56x56x64xf32>) -> tensor<2x56x56x64xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%input, %filter : tensor<2x58x58x64xf32>, tensor<3x3x64x64xf32>) outs(%acc : tensor<2x56x56x64xf32>) -> tensor<2x56x56x64xf32>
  return %r : tensor<2x56x56x64xf32>
}
