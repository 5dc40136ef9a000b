// One pre-norm transformer block, f32: x (128 tokens x 256) -> RMSNorm -> 4-head attention
// (head dim 64) -> residual -> RMSNorm -> MLP 256 -> 1024 (GELU, tanh form) -> 256 -> residual.
// Weights are arguments, so mltune feeds them seeded random values like the activations.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func private @rmsnorm(%x: tensor<128x256xf32>, %g: tensor<256xf32>) -> tensor<128x256xf32> {
  %zero = arith.constant 0.0 : f32
  %inv_n = arith.constant 0.00390625 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e1 = tensor.empty() : tensor<128xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e1 : tensor<128xf32>) -> tensor<128xf32>
  %ss = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<128x256xf32>) outs(%acc : tensor<128xf32>) {
  ^bb0(%a: f32, %s: f32):
    %sq = arith.mulf %a, %a : f32
    %r = arith.addf %s, %sq : f32
    linalg.yield %r : f32
  } -> tensor<128xf32>
  %e2 = tensor.empty() : tensor<128x256xf32>
  %y = linalg.generic {indexing_maps = [#id2, #row, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %ss, %g : tensor<128x256xf32>, tensor<128xf32>, tensor<256xf32>) outs(%e2 : tensor<128x256xf32>) {
  ^bb0(%a: f32, %s: f32, %w: f32, %o: f32):
    %m = arith.mulf %s, %inv_n : f32
    %m2 = arith.addf %m, %eps : f32
    %r = math.rsqrt %m2 : f32
    %n = arith.mulf %a, %r : f32
    %v = arith.mulf %n, %w : f32
    linalg.yield %v : f32
  } -> tensor<128x256xf32>
  return %y : tensor<128x256xf32>
}
func.func private @linear(%x: tensor<128x256xf32>, %w: tensor<256x256xf32>) -> tensor<128x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  %y = linalg.matmul ins(%x, %w : tensor<128x256xf32>, tensor<256x256xf32>) outs(%acc : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %y : tensor<128x256xf32>
}
func.func private @heads(%x: tensor<128x256xf32>) -> tensor<4x128x64xf32> {
  %h = tensor.expand_shape %x [[0], [1, 2]] output_shape [128, 4, 64] : tensor<128x256xf32> into tensor<128x4x64xf32>
  %e = tensor.empty() : tensor<4x128x64xf32>
  %t = linalg.transpose ins(%h : tensor<128x4x64xf32>) outs(%e : tensor<4x128x64xf32>) permutation = [1, 0, 2]
  return %t : tensor<4x128x64xf32>
}
func.func @main(%x: tensor<128x256xf32>, %g1: tensor<256xf32>, %wq: tensor<256x256xf32>, %wk: tensor<256x256xf32>,
                %wv: tensor<256x256xf32>, %wo: tensor<256x256xf32>, %g2: tensor<256xf32>,
                %w1: tensor<256x1024xf32>, %w2: tensor<1024x256xf32>) -> tensor<128x256xf32> {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.125 : f32
  %h1 = call @rmsnorm(%x, %g1) : (tensor<128x256xf32>, tensor<256xf32>) -> tensor<128x256xf32>
  %q2 = call @linear(%h1, %wq) : (tensor<128x256xf32>, tensor<256x256xf32>) -> tensor<128x256xf32>
  %k2 = call @linear(%h1, %wk) : (tensor<128x256xf32>, tensor<256x256xf32>) -> tensor<128x256xf32>
  %v2 = call @linear(%h1, %wv) : (tensor<128x256xf32>, tensor<256x256xf32>) -> tensor<128x256xf32>
  %q = call @heads(%q2) : (tensor<128x256xf32>) -> tensor<4x128x64xf32>
  %k = call @heads(%k2) : (tensor<128x256xf32>) -> tensor<4x128x64xf32>
  %v = call @heads(%v2) : (tensor<128x256xf32>) -> tensor<4x128x64xf32>
  // scores = q k^T / sqrt(64)
  %es = tensor.empty() : tensor<4x128x128xf32>
  %sacc = linalg.fill ins(%zero : f32) outs(%es : tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>,
                                            affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%q, %k : tensor<4x128x64xf32>, tensor<4x128x64xf32>) outs(%sacc : tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
  %ss = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<4x128x128xf32>) outs(%es : tensor<4x128x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %scale : f32
    linalg.yield %r : f32
  } -> tensor<4x128x128xf32>
  %p = linalg.softmax dimension(2) ins(%ss : tensor<4x128x128xf32>) outs(%es : tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
  %eo = tensor.empty() : tensor<4x128x64xf32>
  %oacc = linalg.fill ins(%zero : f32) outs(%eo : tensor<4x128x64xf32>) -> tensor<4x128x64xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<4x128x128xf32>, tensor<4x128x64xf32>) outs(%oacc : tensor<4x128x64xf32>) -> tensor<4x128x64xf32>
  %et = tensor.empty() : tensor<128x4x64xf32>
  %ot = linalg.transpose ins(%o : tensor<4x128x64xf32>) outs(%et : tensor<128x4x64xf32>) permutation = [1, 0, 2]
  %o2 = tensor.collapse_shape %ot [[0], [1, 2]] : tensor<128x4x64xf32> into tensor<128x256xf32>
  %a = call @linear(%o2, %wo) : (tensor<128x256xf32>, tensor<256x256xf32>) -> tensor<128x256xf32>
  %e2 = tensor.empty() : tensor<128x256xf32>
  %r1 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %a : tensor<128x256xf32>, tensor<128x256xf32>) outs(%e2 : tensor<128x256xf32>) {
  ^bb0(%p0: f32, %p1: f32, %o0: f32):
    %s0 = arith.addf %p0, %p1 : f32
    linalg.yield %s0 : f32
  } -> tensor<128x256xf32>
  %h2 = call @rmsnorm(%r1, %g2) : (tensor<128x256xf32>, tensor<256xf32>) -> tensor<128x256xf32>
  // MLP: gelu(h2 w1) w2
  %e4 = tensor.empty() : tensor<128x1024xf32>
  %uacc = linalg.fill ins(%zero : f32) outs(%e4 : tensor<128x1024xf32>) -> tensor<128x1024xf32>
  %u = linalg.matmul ins(%h2, %w1 : tensor<128x256xf32>, tensor<256x1024xf32>) outs(%uacc : tensor<128x1024xf32>) -> tensor<128x1024xf32>
  %gl = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%u : tensor<128x1024xf32>) outs(%e4 : tensor<128x1024xf32>) {
  ^bb0(%a0: f32, %o0: f32):
    %c0 = arith.constant 0.5 : f32
    %c1 = arith.constant 1.0 : f32
    %c2 = arith.constant 0.7978845608 : f32
    %c3 = arith.constant 0.044715 : f32
    %x3 = arith.mulf %a0, %a0 : f32
    %x4 = arith.mulf %x3, %a0 : f32
    %x5 = arith.mulf %x4, %c3 : f32
    %x6 = arith.addf %a0, %x5 : f32
    %x7 = arith.mulf %x6, %c2 : f32
    %x8 = math.tanh %x7 : f32
    %x9 = arith.addf %x8, %c1 : f32
    %x10 = arith.mulf %a0, %c0 : f32
    %x11 = arith.mulf %x10, %x9 : f32
    linalg.yield %x11 : f32
  } -> tensor<128x1024xf32>
  %dacc = linalg.fill ins(%zero : f32) outs(%e2 : tensor<128x256xf32>) -> tensor<128x256xf32>
  %d = linalg.matmul ins(%gl, %w2 : tensor<128x1024xf32>, tensor<1024x256xf32>) outs(%dacc : tensor<128x256xf32>) -> tensor<128x256xf32>
  %e5 = tensor.empty() : tensor<128x256xf32>
  %r2 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%r1, %d : tensor<128x256xf32>, tensor<128x256xf32>) outs(%e5 : tensor<128x256xf32>) {
  ^bb0(%p0: f32, %p1: f32, %o0: f32):
    %s0 = arith.addf %p0, %p1 : f32
    linalg.yield %s0 : f32
  } -> tensor<128x256xf32>
  return %r2 : tensor<128x256xf32>
}
