// A small conv net, f32, NHWC: 3x3 conv (16 -> 32 channels) + ReLU, 3x3 conv (32 -> 32) + ReLU,
// then a classifier matmul over the flattened 30x30x32 features... kept small: 2x2 average pooling
// first, so the classifier is a 1 x 7200 @ 7200 x 10 matmul. The batch-1 convs and the classifier matmul
// are all tuned on llvm-cpu.
#relu4 = affine_map<(n, h, w, c) -> (n, h, w, c)>
func.func @main(%img: tensor<1x34x34x16xf32>, %k1: tensor<3x3x16x32xf32>, %k2: tensor<3x3x32x32xf32>,
                %fc: tensor<7200x10xf32>) -> tensor<1x10xf32> {
  %zero = arith.constant 0.0 : f32
  %quarter = arith.constant 0.25 : f32
  %e1 = tensor.empty() : tensor<1x32x32x32xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32>
  %c1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%img, %k1 : tensor<1x34x34x16xf32>, tensor<3x3x16x32xf32>) outs(%f1 : tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32>
  %r1 = linalg.generic {indexing_maps = [#relu4, #relu4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1 : tensor<1x32x32x32xf32>) outs(%e1 : tensor<1x32x32x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x32x32x32xf32>
  %e2 = tensor.empty() : tensor<1x30x30x32xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x30x30x32xf32>) -> tensor<1x30x30x32xf32>
  %c2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%r1, %k2 : tensor<1x32x32x32xf32>, tensor<3x3x32x32xf32>) outs(%f2 : tensor<1x30x30x32xf32>) -> tensor<1x30x30x32xf32>
  %r2 = linalg.generic {indexing_maps = [#relu4, #relu4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c2 : tensor<1x30x30x32xf32>) outs(%e2 : tensor<1x30x30x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x30x30x32xf32>
  // 2x2 average pooling: 30x30 -> 15x15
  %win = tensor.empty() : tensor<2x2xf32>
  %e3 = tensor.empty() : tensor<1x15x15x32xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<1x15x15x32xf32>) -> tensor<1x15x15x32xf32>
  %p = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%r2, %win : tensor<1x30x30x32xf32>, tensor<2x2xf32>) outs(%f3 : tensor<1x15x15x32xf32>) -> tensor<1x15x15x32xf32>
  %flat = tensor.collapse_shape %p [[0], [1, 2, 3]] : tensor<1x15x15x32xf32> into tensor<1x7200xf32>
  %e4 = tensor.empty() : tensor<1x10xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<1x10xf32>) -> tensor<1x10xf32>
  %logits = linalg.matmul ins(%flat, %fc : tensor<1x7200xf32>, tensor<7200x10xf32>) outs(%f4 : tensor<1x10xf32>) -> tensor<1x10xf32>
  %e5 = tensor.empty() : tensor<1x10xf32>
  %scaled = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%logits : tensor<1x10xf32>) outs(%e5 : tensor<1x10xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.mulf %a, %quarter : f32
    linalg.yield %s : f32
  } -> tensor<1x10xf32>
  return %scaled : tensor<1x10xf32>
}
