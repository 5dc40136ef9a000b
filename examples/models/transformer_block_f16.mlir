// One pre-norm transformer block in f16 with f32 accumulation, sized like a GPT-2-medium / BERT-large layer:
// x (512 tokens x 1024) -> RMSNorm -> 16-head attention (head dim 64) -> residual -> RMSNorm -> MLP 1024 -> 4096
// (GELU, tanh form) -> 1024 -> residual. Matmuls take f16 operands and accumulate in f32; norms, softmax and residuals
// run in f32. Weights are arguments, so mltune feeds them seeded random values like the activations.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func private @rmsnorm(%x: tensor<512x1024xf32>, %g: tensor<1024xf16>) -> tensor<512x1024xf16> {
  %zero = arith.constant 0.0 : f32
  %inv_n = arith.constant 0.0009765625 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e1 = tensor.empty() : tensor<512xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e1 : tensor<512xf32>) -> tensor<512xf32>
  %ss = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<512x1024xf32>) outs(%acc : tensor<512xf32>) {
  ^bb0(%a: f32, %s: f32):
    %sq = arith.mulf %a, %a : f32
    %r = arith.addf %s, %sq : f32
    linalg.yield %r : f32
  } -> tensor<512xf32>
  %e2 = tensor.empty() : tensor<512x1024xf16>
  %y = linalg.generic {indexing_maps = [#id2, #row, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %ss, %g : tensor<512x1024xf32>, tensor<512xf32>, tensor<1024xf16>) outs(%e2 : tensor<512x1024xf16>) {
  ^bb0(%a: f32, %s: f32, %w: f16, %o: f16):
    %m = arith.mulf %s, %inv_n : f32
    %m2 = arith.addf %m, %eps : f32
    %r = math.rsqrt %m2 : f32
    %n = arith.mulf %a, %r : f32
    %w32 = arith.extf %w : f16 to f32
    %v = arith.mulf %n, %w32 : f32
    %h = arith.truncf %v : f32 to f16
    linalg.yield %h : f16
  } -> tensor<512x1024xf16>
  return %y : tensor<512x1024xf16>
}
func.func private @linear(%x: tensor<512x1024xf16>, %w: tensor<1024x1024xf16>) -> tensor<512x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x1024xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<512x1024xf32>) -> tensor<512x1024xf32>
  %y = linalg.matmul ins(%x, %w : tensor<512x1024xf16>, tensor<1024x1024xf16>) outs(%acc : tensor<512x1024xf32>) -> tensor<512x1024xf32>
  return %y : tensor<512x1024xf32>
}
func.func private @half(%x: tensor<512x1024xf32>) -> tensor<512x1024xf16> {
  %e = tensor.empty() : tensor<512x1024xf16>
  %y = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<512x1024xf32>) outs(%e : tensor<512x1024xf16>) {
  ^bb0(%a: f32, %o: f16):
    %h = arith.truncf %a : f32 to f16
    linalg.yield %h : f16
  } -> tensor<512x1024xf16>
  return %y : tensor<512x1024xf16>
}
func.func private @heads(%x: tensor<512x1024xf16>) -> tensor<16x512x64xf16> {
  %h = tensor.expand_shape %x [[0], [1, 2]] output_shape [512, 16, 64] : tensor<512x1024xf16> into tensor<512x16x64xf16>
  %e = tensor.empty() : tensor<16x512x64xf16>
  %t = linalg.transpose ins(%h : tensor<512x16x64xf16>) outs(%e : tensor<16x512x64xf16>) permutation = [1, 0, 2]
  return %t : tensor<16x512x64xf16>
}
func.func private @add(%a: tensor<512x1024xf32>, %b: tensor<512x1024xf32>) -> tensor<512x1024xf32> {
  %e = tensor.empty() : tensor<512x1024xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<512x1024xf32>, tensor<512x1024xf32>) outs(%e : tensor<512x1024xf32>) {
  ^bb0(%p0: f32, %p1: f32, %o0: f32):
    %s0 = arith.addf %p0, %p1 : f32
    linalg.yield %s0 : f32
  } -> tensor<512x1024xf32>
  return %r : tensor<512x1024xf32>
}
func.func @main(%x: tensor<512x1024xf32>, %g1: tensor<1024xf16>, %wq: tensor<1024x1024xf16>, %wk: tensor<1024x1024xf16>,
                %wv: tensor<1024x1024xf16>, %wo: tensor<1024x1024xf16>, %g2: tensor<1024xf16>,
                %w1: tensor<1024x4096xf16>, %w2: tensor<4096x1024xf16>) -> tensor<512x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.125 : f32
  %h1 = call @rmsnorm(%x, %g1) : (tensor<512x1024xf32>, tensor<1024xf16>) -> tensor<512x1024xf16>
  %q2 = call @linear(%h1, %wq) : (tensor<512x1024xf16>, tensor<1024x1024xf16>) -> tensor<512x1024xf32>
  %k2 = call @linear(%h1, %wk) : (tensor<512x1024xf16>, tensor<1024x1024xf16>) -> tensor<512x1024xf32>
  %v2 = call @linear(%h1, %wv) : (tensor<512x1024xf16>, tensor<1024x1024xf16>) -> tensor<512x1024xf32>
  %q3 = call @half(%q2) : (tensor<512x1024xf32>) -> tensor<512x1024xf16>
  %k3 = call @half(%k2) : (tensor<512x1024xf32>) -> tensor<512x1024xf16>
  %v3 = call @half(%v2) : (tensor<512x1024xf32>) -> tensor<512x1024xf16>
  %q = call @heads(%q3) : (tensor<512x1024xf16>) -> tensor<16x512x64xf16>
  %k = call @heads(%k3) : (tensor<512x1024xf16>) -> tensor<16x512x64xf16>
  %v = call @heads(%v3) : (tensor<512x1024xf16>) -> tensor<16x512x64xf16>
  // scores = q k^T / sqrt(64), accumulated in f32
  %es = tensor.empty() : tensor<16x512x512xf32>
  %sacc = linalg.fill ins(%zero : f32) outs(%es : tensor<16x512x512xf32>) -> tensor<16x512x512xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>,
                                            affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%q, %k : tensor<16x512x64xf16>, tensor<16x512x64xf16>) outs(%sacc : tensor<16x512x512xf32>) -> tensor<16x512x512xf32>
  %ss = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<16x512x512xf32>) outs(%es : tensor<16x512x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %scale : f32
    linalg.yield %r : f32
  } -> tensor<16x512x512xf32>
  %p = linalg.softmax dimension(2) ins(%ss : tensor<16x512x512xf32>) outs(%es : tensor<16x512x512xf32>) -> tensor<16x512x512xf32>
  %eh = tensor.empty() : tensor<16x512x512xf16>
  %ph = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : tensor<16x512x512xf32>) outs(%eh : tensor<16x512x512xf16>) {
  ^bb0(%a: f32, %o: f16):
    %h = arith.truncf %a : f32 to f16
    linalg.yield %h : f16
  } -> tensor<16x512x512xf16>
  %eo = tensor.empty() : tensor<16x512x64xf32>
  %oacc = linalg.fill ins(%zero : f32) outs(%eo : tensor<16x512x64xf32>) -> tensor<16x512x64xf32>
  %o = linalg.batch_matmul ins(%ph, %v : tensor<16x512x512xf16>, tensor<16x512x64xf16>) outs(%oacc : tensor<16x512x64xf32>) -> tensor<16x512x64xf32>
  %et = tensor.empty() : tensor<512x16x64xf32>
  %ot = linalg.transpose ins(%o : tensor<16x512x64xf32>) outs(%et : tensor<512x16x64xf32>) permutation = [1, 0, 2]
  %o2 = tensor.collapse_shape %ot [[0], [1, 2]] : tensor<512x16x64xf32> into tensor<512x1024xf32>
  %o3 = call @half(%o2) : (tensor<512x1024xf32>) -> tensor<512x1024xf16>
  %a = call @linear(%o3, %wo) : (tensor<512x1024xf16>, tensor<1024x1024xf16>) -> tensor<512x1024xf32>
  %r1 = call @add(%x, %a) : (tensor<512x1024xf32>, tensor<512x1024xf32>) -> tensor<512x1024xf32>
  %h2 = call @rmsnorm(%r1, %g2) : (tensor<512x1024xf32>, tensor<1024xf16>) -> tensor<512x1024xf16>
  // MLP: gelu(h2 w1) w2, GELU in f32 on the f32 accumulator, its result in f16 for the second matmul
  %e4 = tensor.empty() : tensor<512x4096xf32>
  %uacc = linalg.fill ins(%zero : f32) outs(%e4 : tensor<512x4096xf32>) -> tensor<512x4096xf32>
  %u = linalg.matmul ins(%h2, %w1 : tensor<512x1024xf16>, tensor<1024x4096xf16>) outs(%uacc : tensor<512x4096xf32>) -> tensor<512x4096xf32>
  %e4h = tensor.empty() : tensor<512x4096xf16>
  %gl = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%u : tensor<512x4096xf32>) outs(%e4h : tensor<512x4096xf16>) {
  ^bb0(%a0: f32, %o0: f16):
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
    %x12 = arith.truncf %x11 : f32 to f16
    linalg.yield %x12 : f16
  } -> tensor<512x4096xf16>
  %e2 = tensor.empty() : tensor<512x1024xf32>
  %dacc = linalg.fill ins(%zero : f32) outs(%e2 : tensor<512x1024xf32>) -> tensor<512x1024xf32>
  %d = linalg.matmul ins(%gl, %w2 : tensor<512x4096xf16>, tensor<4096x1024xf16>) outs(%dacc : tensor<512x1024xf32>) -> tensor<512x1024xf32>
  %r2 = call @add(%r1, %d) : (tensor<512x1024xf32>, tensor<512x1024xf32>) -> tensor<512x1024xf32>
  return %r2 : tensor<512x1024xf32>
}
