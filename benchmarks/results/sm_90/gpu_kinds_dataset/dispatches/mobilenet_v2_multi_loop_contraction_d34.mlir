module {
  util.global private @__device_0 = #hal.device.target<"cuda", [#hal.executable.target<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>]> : !hal.device
  hal.executable private @main$async_dispatch_34 {
    hal.executable.variant public @cuda_nvptx_fb target(<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>) {
      hal.executable.export public @main$async_dispatch_34_matmul_like_576x14x14x96_f32 ordinal(0) layout(#hal.pipeline.layout<constants = 6, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) count(%arg0: !hal.device) -> (index, index, index) {
        %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
        hal.return %x, %y, %z : index, index, index
      }
      builtin.module {
        func.func @main$async_dispatch_34_matmul_like_576x14x14x96_f32() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [32, 8, 1] subgroup_size = 32, {gpu_pipeline_options = #iree_gpu.pipeline_options<no_reduce_shared_memory_bank_conflicts = true, use_igemm_convolution = false>}>} {
          %cst = arith.constant 6.000000e+00 : f32
          %cst_0 = arith.constant 0.000000e+00 : f32
          %c10240 = arith.constant 10240 : index
          %0 = hal.interface.constant.load layout(<constants = 6, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(0) : i32
          %1 = hal.interface.constant.load layout(<constants = 6, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(1) : i32
          %2 = hal.interface.constant.load layout(<constants = 6, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(2) : i32
          %3 = hal.interface.constant.load layout(<constants = 6, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(3) : i32
          %4 = hal.interface.constant.load layout(<constants = 6, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(4) : i32
          %5 = hal.interface.constant.load layout(<constants = 6, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(5) : i32
          %6 = arith.index_castui %0 : i32 to index
          %7 = arith.index_castui %1 : i32 to index
          %8 = arith.index_castui %2 : i32 to index
          %9 = arith.index_castui %3 : i32 to index
          %10 = arith.index_castui %4 : i32 to index
          %11 = arith.index_castui %5 : i32 to index
          %12:6 = util.assume.int 
              %6[<umin = 0, umax = 0>, <umin = 526848, umax = 526848, udiv = 526848>], 
              %7[<umin = 1366976, umax = 1366976, udiv = 1366976>, <umin = 1830080, umax = 1830080, udiv = 1830080>], 
              %8[<umin = 71168, umax = 71168, udiv = 71168>, <umin = 86144, umax = 86144, udiv = 86144>], 
              %9[<umin = 73472, umax = 73472, udiv = 73472>, <umin = 88448, umax = 88448, udiv = 88448>], 
              %10[<umin = 75776, umax = 75776, udiv = 75776>, <umin = 90752, umax = 90752, udiv = 90752>], 
              %11[<umin = 794624, umax = 794624, udiv = 794624>, <umin = 602112, umax = 602112, udiv = 602112>]
            : index, index, index, index, index, index
          %13 = hal.interface.binding.subspan layout(<constants = 6, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(0) alignment(64) offset(%12#0) flags("ReadOnly|Indirect") : memref<96x14x14xf32, strided<[196, 14, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %14 = hal.interface.binding.subspan layout(<constants = 6, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%12#1) flags(ReadOnly) : memref<576x96xf32, strided<[96, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %15 = hal.interface.binding.subspan layout(<constants = 6, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%12#2) flags(ReadOnly) : memref<576xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %16 = hal.interface.binding.subspan layout(<constants = 6, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(2) alignment(64) offset(%c10240) flags(ReadOnly) : memref<576xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %17 = hal.interface.binding.subspan layout(<constants = 6, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%12#3) flags(ReadOnly) : memref<576xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %18 = hal.interface.binding.subspan layout(<constants = 6, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%12#4) flags(ReadOnly) : memref<576xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %19 = hal.interface.binding.subspan layout(<constants = 6, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(3) alignment(64) offset(%12#5) flags(Indirect) : memref<576x16x16xf32, strided<[256, 16, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %subview = memref.subview %19[0, 1, 1] [576, 14, 14] [1, 1, 1] : memref<576x16x16xf32, strided<[256, 16, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> to memref<576x14x14xf32, strided<[256, 16, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %20 = iree_codegen.load_from_buffer %13 : memref<96x14x14xf32, strided<[196, 14, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<96x14x14xf32>
          %21 = iree_codegen.load_from_buffer %14 : memref<576x96xf32, strided<[96, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<576x96xf32>
          %22 = iree_codegen.load_from_buffer %15 : memref<576xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<576xf32>
          %23 = iree_codegen.load_from_buffer %16 : memref<576xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<576xf32>
          %24 = iree_codegen.load_from_buffer %17 : memref<576xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<576xf32>
          %25 = iree_codegen.load_from_buffer %18 : memref<576xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<576xf32>
          %26 = tensor.empty() : tensor<576x14x14xf32>
          %27 = linalg.fill ins(%cst_0 : f32) outs(%26 : tensor<576x14x14xf32>) -> tensor<576x14x14xf32>
          %28 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%20, %21 : tensor<96x14x14xf32>, tensor<576x96xf32>) outs(%27 : tensor<576x14x14xf32>) attrs =  {lowering_config = #iree_gpu.lowering_config<{reduction = [0, 0, 0, 32], thread = [1, 1, 16, 0], workgroup = [1, 32, 128, 1]}>, root_op = #iree_codegen.root_op<set = 0>} {
          ^bb0(%in: f32, %in_1: f32, %out: f32):
            %30 = arith.mulf %in, %in_1 : f32
            %31 = arith.addf %out, %30 : f32
            linalg.yield %31 : f32
          } -> tensor<576x14x14xf32>
          %29 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%28, %22, %23, %24, %25 : tensor<576x14x14xf32>, tensor<576xf32>, tensor<576xf32>, tensor<576xf32>, tensor<576xf32>) outs(%26 : tensor<576x14x14xf32>) {
          ^bb0(%in: f32, %in_1: f32, %in_2: f32, %in_3: f32, %in_4: f32, %out: f32):
            %30 = arith.subf %in, %in_1 : f32
            %31 = arith.mulf %30, %in_2 : f32
            %32 = arith.mulf %31, %in_3 : f32
            %33 = arith.addf %32, %in_4 : f32
            %34 = arith.cmpf ogt, %33, %cst_0 : f32
            %35 = arith.select %34, %33, %cst_0 : f32
            %36 = arith.cmpf olt, %cst, %35 : f32
            %37 = arith.select %36, %cst, %35 : f32
            linalg.yield %37 : f32
          } -> tensor<576x14x14xf32>
          iree_codegen.store_to_buffer %29, %subview : tensor<576x14x14xf32> into memref<576x14x14xf32, strided<[256, 16, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          return
        }
        iree_codegen.dispatch_config @main$async_dispatch_34_matmul_like_576x14x14x96_f32 {
        ^bb0(%arg0: !hal.device):
          %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
          iree_codegen.yield %x, %y, %z : index, index, index
        }
      }
    }
  }
  util.global private mutable @main$async_dispatch_34_cuda_nvptx_fb_main$async_dispatch_34_matmul_like_576x14x14x96_f32_buffer : !hal.buffer
  util.initializer {
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %allocator = hal.device.allocator<%device : !hal.device> : !hal.allocator
    %memory_type = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
    %buffer_usage = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage"> : i32
    %c31659264 = arith.constant 31659264 : index
    %buffer = hal.allocator.allocate<%allocator : !hal.allocator> affinity(%queue_affinity) type(%memory_type) usage(%buffer_usage) : !hal.buffer{%c31659264}
    util.global.store %buffer, @main$async_dispatch_34_cuda_nvptx_fb_main$async_dispatch_34_matmul_like_576x14x14x96_f32_buffer : !hal.buffer
    util.return
  }
  util.func public @main$async_dispatch_34_cuda_nvptx_fb_main$async_dispatch_34_matmul_like_576x14x14x96_f32(%arg0: i32) attributes {iree.abi.stub, iree.reflection = {iree.benchmark = "dispatch"}} {
    %0 = arith.index_cast %arg0 : i32 to index
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %cmd = hal.command_buffer.create device(%device : !hal.device) mode("OneShot|AllowInlineExecution") categories(Dispatch) affinity(%queue_affinity) : !hal.command_buffer
    %c526848_i32 = arith.constant 526848 : i32
    %c1830080_i32 = arith.constant 1830080 : i32
    %c86144_i32 = arith.constant 86144 : i32
    %c88448_i32 = arith.constant 88448 : i32
    %c90752_i32 = arith.constant 90752 : i32
    %c602112_i32 = arith.constant 602112 : i32
    %main$async_dispatch_34_cuda_nvptx_fb_main$async_dispatch_34_matmul_like_576x14x14x96_f32_buffer = util.global.load @main$async_dispatch_34_cuda_nvptx_fb_main$async_dispatch_34_matmul_like_576x14x14x96_f32_buffer : !hal.buffer
    %c0 = arith.constant 0 : index
    %c8779968 = arith.constant 8779968 : index
    %c8780032 = arith.constant 8780032 : index
    %c14081984 = arith.constant 14081984 : index
    %c22862080 = arith.constant 22862080 : index
    %c17024 = arith.constant 17024 : index
    %c22879232 = arith.constant 22879232 : index
    %workgroup_x, %workgroup_y, %workgroup_z = hal.executable.calculate_workgroups device(%device : !hal.device) target(@main$async_dispatch_34::@cuda_nvptx_fb::@main$async_dispatch_34_matmul_like_576x14x14x96_f32) : index, index, index
    %exe = hal.executable.lookup device(%device : !hal.device) executable(@main$async_dispatch_34) : !hal.executable
    %function_id = hal.executable.lookup.function target(%exe : !hal.executable) function(@main$async_dispatch_34::@cuda_nvptx_fb::@main$async_dispatch_34_matmul_like_576x14x14x96_f32) : i64
    %c1 = arith.constant 1 : index
    scf.for %arg1 = %c0 to %0 step %c1 {
      hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%function_id] workgroups([%workgroup_x, %workgroup_y, %workgroup_z]) constants([%c526848_i32, %c1830080_i32, %c86144_i32, %c88448_i32, %c90752_i32, %c602112_i32]) bindings([
        (%main$async_dispatch_34_cuda_nvptx_fb_main$async_dispatch_34_matmul_like_576x14x14x96_f32_buffer : !hal.buffer)[%c0, %c8779968], 
        (%main$async_dispatch_34_cuda_nvptx_fb_main$async_dispatch_34_matmul_like_576x14x14x96_f32_buffer : !hal.buffer)[%c8780032, %c14081984], 
        (%main$async_dispatch_34_cuda_nvptx_fb_main$async_dispatch_34_matmul_like_576x14x14x96_f32_buffer : !hal.buffer)[%c22862080, %c17024], 
        (%main$async_dispatch_34_cuda_nvptx_fb_main$async_dispatch_34_matmul_like_576x14x14x96_f32_buffer : !hal.buffer)[%c22879232, %c8779968]
      ]) flags("None")
      hal.command_buffer.execution_barrier<%cmd : !hal.command_buffer> source("Dispatch|CommandRetire") target("CommandIssue|Dispatch") flags("None")
    }
    hal.command_buffer.finalize<%cmd : !hal.command_buffer>
    %1 = util.null : !hal.fence
    %fence = hal.fence.create device(%device : !hal.device) flags("None") : !hal.fence
    hal.device.queue.execute<%device : !hal.device> affinity(%queue_affinity) wait(%1) signal(%fence) commands(%cmd) flags("None")
    %c-1_i32 = arith.constant -1 : i32
    %status = hal.fence.await until([%fence]) timeout_millis(%c-1_i32) flags("None") : i32
    util.status.check_ok %status, "failed to wait on timepoint"
    util.return
  }
}
