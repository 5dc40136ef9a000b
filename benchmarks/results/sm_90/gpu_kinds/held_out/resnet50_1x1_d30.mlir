module {
  util.global private @__device_0 = #hal.device.target<"cuda", [#hal.executable.target<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>]> : !hal.device
  hal.executable private @main$async_dispatch_30 {
    hal.executable.variant public @cuda_nvptx_fb target(<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>) {
      hal.executable.export public @main$async_dispatch_30_matmul_like_256x14x14x1024_f32 ordinal(0) layout(#hal.pipeline.layout<constants = 5, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) count(%arg0: !hal.device) -> (index, index, index) {
        %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
        hal.return %x, %y, %z : index, index, index
      }
      builtin.module {
        func.func @main$async_dispatch_30_matmul_like_256x14x14x1024_f32() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [32, 8, 1] subgroup_size = 32, {gpu_pipeline_options = #iree_gpu.pipeline_options<no_reduce_shared_memory_bank_conflicts = true, use_igemm_convolution = false>}>} {
          %cst = arith.constant 0.000000e+00 : f32
          %c12800 = arith.constant 12800 : index
          %c1806336 = arith.constant 1806336 : index
          %0 = hal.interface.constant.load layout(<constants = 5, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(0) : i32
          %1 = hal.interface.constant.load layout(<constants = 5, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(1) : i32
          %2 = hal.interface.constant.load layout(<constants = 5, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(2) : i32
          %3 = hal.interface.constant.load layout(<constants = 5, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(3) : i32
          %4 = hal.interface.constant.load layout(<constants = 5, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(4) : i32
          %5 = arith.index_castui %0 : i32 to index
          %6 = arith.index_castui %1 : i32 to index
          %7 = arith.index_castui %2 : i32 to index
          %8 = arith.index_castui %3 : i32 to index
          %9 = arith.index_castui %4 : i32 to index
          %10:5 = util.assume.int 
              %5[<umin = 1003520, umax = 1003520, udiv = 1003520>, <umin = 200704, umax = 200704, udiv = 200704>, <umin = 1003520, umax = 1003520, udiv = 1003520>, <umin = 200704, umax = 200704, udiv = 200704>, <umin = 1003520, umax = 1003520, udiv = 1003520>], 
              %6[<umin = 11987648, umax = 11987648, udiv = 11987648>, <umin = 16444096, umax = 16444096, udiv = 16444096>, <umin = 20900544, umax = 20900544, udiv = 20900544>, <umin = 25356992, umax = 25356992, udiv = 25356992>, <umin = 29813440, umax = 29813440, udiv = 29813440>], 
              %7[<umin = 86016, umax = 86016, udiv = 86016>, <umin = 104448, umax = 104448, udiv = 104448>, <umin = 122880, umax = 122880, udiv = 122880>, <umin = 141312, umax = 141312, udiv = 141312>, <umin = 159744, umax = 159744, udiv = 159744>], 
              %8[<umin = 87040, umax = 87040, udiv = 87040>, <umin = 105472, umax = 105472, udiv = 105472>, <umin = 123904, umax = 123904, udiv = 123904>, <umin = 142336, umax = 142336, udiv = 142336>, <umin = 160768, umax = 160768, udiv = 160768>], 
              %9[<umin = 88064, umax = 88064, udiv = 88064>, <umin = 106496, umax = 106496, udiv = 106496>, <umin = 124928, umax = 124928, udiv = 124928>, <umin = 143360, umax = 143360, udiv = 143360>, <umin = 161792, umax = 161792, udiv = 161792>]
            : index, index, index, index, index
          %11 = hal.interface.binding.subspan layout(<constants = 5, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(0) alignment(64) offset(%10#0) flags("ReadOnly|Indirect") : memref<1024x14x14xf32, strided<[196, 14, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %12 = hal.interface.binding.subspan layout(<constants = 5, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%10#1) flags(ReadOnly) : memref<256x1024xf32, strided<[1024, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %13 = hal.interface.binding.subspan layout(<constants = 5, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%10#2) flags(ReadOnly) : memref<256xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %14 = hal.interface.binding.subspan layout(<constants = 5, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(2) alignment(64) offset(%c12800) flags(ReadOnly) : memref<256xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %15 = hal.interface.binding.subspan layout(<constants = 5, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%10#3) flags(ReadOnly) : memref<256xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %16 = hal.interface.binding.subspan layout(<constants = 5, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%10#4) flags(ReadOnly) : memref<256xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %17 = hal.interface.binding.subspan layout(<constants = 5, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(3) alignment(64) offset(%c1806336) flags(Indirect) : memref<256x16x16xf32, strided<[256, 16, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %subview = memref.subview %17[0, 1, 1] [256, 14, 14] [1, 1, 1] : memref<256x16x16xf32, strided<[256, 16, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> to memref<256x14x14xf32, strided<[256, 16, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %18 = iree_codegen.load_from_buffer %11 : memref<1024x14x14xf32, strided<[196, 14, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<1024x14x14xf32>
          %19 = iree_codegen.load_from_buffer %12 : memref<256x1024xf32, strided<[1024, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<256x1024xf32>
          %20 = iree_codegen.load_from_buffer %13 : memref<256xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<256xf32>
          %21 = iree_codegen.load_from_buffer %14 : memref<256xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<256xf32>
          %22 = iree_codegen.load_from_buffer %15 : memref<256xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<256xf32>
          %23 = iree_codegen.load_from_buffer %16 : memref<256xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<256xf32>
          %24 = tensor.empty() : tensor<256x14x14xf32>
          %25 = linalg.fill ins(%cst : f32) outs(%24 : tensor<256x14x14xf32>) -> tensor<256x14x14xf32>
          %26 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%18, %19 : tensor<1024x14x14xf32>, tensor<256x1024xf32>) outs(%25 : tensor<256x14x14xf32>) attrs =  {lowering_config = #iree_gpu.lowering_config<{reduction = [0, 0, 0, 32], thread = [1, 1, 16, 0], workgroup = [1, 32, 128, 1]}>, root_op = #iree_codegen.root_op<set = 0>} {
          ^bb0(%in: f32, %in_0: f32, %out: f32):
            %28 = arith.mulf %in, %in_0 : f32
            %29 = arith.addf %out, %28 : f32
            linalg.yield %29 : f32
          } -> tensor<256x14x14xf32>
          %27 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%26, %20, %21, %22, %23 : tensor<256x14x14xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>) outs(%24 : tensor<256x14x14xf32>) {
          ^bb0(%in: f32, %in_0: f32, %in_1: f32, %in_2: f32, %in_3: f32, %out: f32):
            %28 = arith.subf %in, %in_0 : f32
            %29 = arith.mulf %28, %in_1 : f32
            %30 = arith.mulf %29, %in_2 : f32
            %31 = arith.addf %30, %in_3 : f32
            %32 = arith.cmpf ugt, %31, %cst : f32
            %33 = arith.select %32, %31, %cst : f32
            linalg.yield %33 : f32
          } -> tensor<256x14x14xf32>
          iree_codegen.store_to_buffer %27, %subview : tensor<256x14x14xf32> into memref<256x14x14xf32, strided<[256, 16, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          return
        }
        iree_codegen.dispatch_config @main$async_dispatch_30_matmul_like_256x14x14x1024_f32 {
        ^bb0(%arg0: !hal.device):
          %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
          iree_codegen.yield %x, %y, %z : index, index, index
        }
      }
    }
  }
  util.global private mutable @main$async_dispatch_30_cuda_nvptx_fb_main$async_dispatch_30_matmul_like_256x14x14x1024_f32_buffer : !hal.buffer
  util.initializer {
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %allocator = hal.device.allocator<%device : !hal.device> : !hal.allocator
    %memory_type = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
    %buffer_usage = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage"> : i32
    %c120240640 = arith.constant 120240640 : index
    %buffer = hal.allocator.allocate<%allocator : !hal.allocator> affinity(%queue_affinity) type(%memory_type) usage(%buffer_usage) : !hal.buffer{%c120240640}
    util.global.store %buffer, @main$async_dispatch_30_cuda_nvptx_fb_main$async_dispatch_30_matmul_like_256x14x14x1024_f32_buffer : !hal.buffer
    util.return
  }
  util.func public @main$async_dispatch_30_cuda_nvptx_fb_main$async_dispatch_30_matmul_like_256x14x14x1024_f32(%arg0: i32) attributes {iree.abi.stub, iree.reflection = {iree.benchmark = "dispatch"}} {
    %0 = arith.index_cast %arg0 : i32 to index
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %cmd = hal.command_buffer.create device(%device : !hal.device) mode("OneShot|AllowInlineExecution") categories(Dispatch) affinity(%queue_affinity) : !hal.command_buffer
    %c1003520_i32 = arith.constant 1003520 : i32
    %c29813440_i32 = arith.constant 29813440 : i32
    %c159744_i32 = arith.constant 159744 : i32
    %c160768_i32 = arith.constant 160768 : i32
    %c161792_i32 = arith.constant 161792 : i32
    %main$async_dispatch_30_cuda_nvptx_fb_main$async_dispatch_30_matmul_like_256x14x14x1024_f32_buffer = util.global.load @main$async_dispatch_30_cuda_nvptx_fb_main$async_dispatch_30_matmul_like_256x14x14x1024_f32_buffer : !hal.buffer
    %c0 = arith.constant 0 : index
    %c8947712 = arith.constant 8947712 : index
    %c102329024 = arith.constant 102329024 : index
    %c111276800 = arith.constant 111276800 : index
    %c16128 = arith.constant 16128 : index
    %c111292928 = arith.constant 111292928 : index
    %workgroup_x, %workgroup_y, %workgroup_z = hal.executable.calculate_workgroups device(%device : !hal.device) target(@main$async_dispatch_30::@cuda_nvptx_fb::@main$async_dispatch_30_matmul_like_256x14x14x1024_f32) : index, index, index
    %exe = hal.executable.lookup device(%device : !hal.device) executable(@main$async_dispatch_30) : !hal.executable
    %function_id = hal.executable.lookup.function target(%exe : !hal.executable) function(@main$async_dispatch_30::@cuda_nvptx_fb::@main$async_dispatch_30_matmul_like_256x14x14x1024_f32) : i64
    %c1 = arith.constant 1 : index
    scf.for %arg1 = %c0 to %0 step %c1 {
      hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%function_id] workgroups([%workgroup_x, %workgroup_y, %workgroup_z]) constants([%c1003520_i32, %c29813440_i32, %c159744_i32, %c160768_i32, %c161792_i32]) bindings([
        (%main$async_dispatch_30_cuda_nvptx_fb_main$async_dispatch_30_matmul_like_256x14x14x1024_f32_buffer : !hal.buffer)[%c0, %c8947712], 
        (%main$async_dispatch_30_cuda_nvptx_fb_main$async_dispatch_30_matmul_like_256x14x14x1024_f32_buffer : !hal.buffer)[%c8947712, %c102329024], 
        (%main$async_dispatch_30_cuda_nvptx_fb_main$async_dispatch_30_matmul_like_256x14x14x1024_f32_buffer : !hal.buffer)[%c111276800, %c16128], 
        (%main$async_dispatch_30_cuda_nvptx_fb_main$async_dispatch_30_matmul_like_256x14x14x1024_f32_buffer : !hal.buffer)[%c111292928, %c8947712]
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
