module {
  util.global private @__device_0 = #hal.device.target<"cuda", [#hal.executable.target<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>]> : !hal.device
  hal.executable private @main$async_dispatch_15 {
    hal.executable.variant public @cuda_nvptx_fb target(<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>) {
      hal.executable.export public @main$async_dispatch_15_batch_matmul_1x128x768x3072_f32 ordinal(0) layout(#hal.pipeline.layout<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) count(%arg0: !hal.device) -> (index, index, index) {
        %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
        hal.return %x, %y, %z : index, index, index
      }
      builtin.module {
        func.func @main$async_dispatch_15_batch_matmul_1x128x768x3072_f32() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [32, 8, 1] subgroup_size = 32, {gpu_pipeline_options = #iree_gpu.pipeline_options<no_reduce_shared_memory_bank_conflicts = true, use_igemm_convolution = false>}>} {
          %cst = arith.constant 0.000000e+00 : f32
          %c393216 = arith.constant 393216 : index
          %c0 = arith.constant 0 : index
          %0 = hal.interface.constant.load layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(0) : i32
          %1 = hal.interface.constant.load layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(1) : i32
          %2 = hal.interface.constant.load layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(2) : i32
          %3 = arith.index_castui %0 : i32 to index
          %4 = arith.index_castui %1 : i32 to index
          %5 = arith.index_castui %2 : i32 to index
          %6:3 = util.assume.int 
              %3[<umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 786432, umax = 786432, udiv = 786432>], 
              %4[<umin = 19660800, umax = 19660800, udiv = 19660800>, <umin = 47972352, umax = 47972352, udiv = 47972352>, <umin = 76283904, umax = 76283904, udiv = 76283904>, <umin = 104595456, umax = 104595456, udiv = 104595456>, <umin = 132907008, umax = 132907008, udiv = 132907008>, <umin = 161218560, umax = 161218560, udiv = 161218560>, <umin = 189530112, umax = 189530112, udiv = 189530112>, <umin = 217841664, umax = 217841664, udiv = 217841664>, <umin = 246153216, umax = 246153216, udiv = 246153216>, <umin = 274464768, umax = 274464768, udiv = 274464768>, <umin = 302776320, umax = 302776320, udiv = 302776320>, <umin = 331087872, umax = 331087872, udiv = 331087872>], 
              %5[<umin = 434746368, umax = 434746368, udiv = 434746368>, <umin = 434718720, umax = 434718720, udiv = 434718720>, <umin = 434691072, umax = 434691072, udiv = 434691072>, <umin = 434663424, umax = 434663424, udiv = 434663424>, <umin = 434635776, umax = 434635776, udiv = 434635776>, <umin = 434608128, umax = 434608128, udiv = 434608128>, <umin = 434580480, umax = 434580480, udiv = 434580480>, <umin = 434552832, umax = 434552832, udiv = 434552832>, <umin = 434525184, umax = 434525184, udiv = 434525184>, <umin = 434497536, umax = 434497536, udiv = 434497536>, <umin = 434469888, umax = 434469888, udiv = 434469888>, <umin = 434442240, umax = 434442240, udiv = 434442240>]
            : index, index, index
          %7 = hal.interface.binding.subspan layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(0) alignment(64) offset(%6#0) flags("ReadOnly|Indirect") : memref<1x128x3072xf32, strided<[393216, 3072, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %8 = hal.interface.binding.subspan layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%6#1) flags(ReadOnly) : memref<1x3072x768xf32, strided<[2359296, 768, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %9 = hal.interface.binding.subspan layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%6#2) flags(ReadOnly) : memref<768xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %10 = hal.interface.binding.subspan layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(0) alignment(64) offset(%c393216) flags("ReadOnly|Indirect") : memref<1x128x768xf32, strided<[98304, 768, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %11 = hal.interface.binding.subspan layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(2) alignment(64) offset(%c0) flags(Indirect) : memref<1x128x768xf32, #hal.descriptor_type<storage_buffer>>
          %12 = iree_codegen.load_from_buffer %7 : memref<1x128x3072xf32, strided<[393216, 3072, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<1x128x3072xf32>
          %13 = iree_codegen.load_from_buffer %8 : memref<1x3072x768xf32, strided<[2359296, 768, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<1x3072x768xf32>
          %14 = iree_codegen.load_from_buffer %9 : memref<768xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<768xf32>
          %15 = iree_codegen.load_from_buffer %10 : memref<1x128x768xf32, strided<[98304, 768, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<1x128x768xf32>
          %16 = tensor.empty() : tensor<1x128x768xf32>
          %17 = linalg.fill ins(%cst : f32) outs(%16 : tensor<1x128x768xf32>) -> tensor<1x128x768xf32>
          %18 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%12, %13 : tensor<1x128x3072xf32>, tensor<1x3072x768xf32>) outs(%17 : tensor<1x128x768xf32>) attrs =  {lowering_config = #iree_gpu.lowering_config<{reduction = [0, 0, 0, 32], thread = [1, 1, 16, 0], workgroup = [0, 32, 128, 1]}>, root_op = #iree_codegen.root_op<set = 0>} {
          ^bb0(%in: f32, %in_0: f32, %out: f32):
            %20 = arith.mulf %in, %in_0 : f32
            %21 = arith.addf %out, %20 : f32
            linalg.yield %21 : f32
          } -> tensor<1x128x768xf32>
          %19 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%18, %14, %15 : tensor<1x128x768xf32>, tensor<768xf32>, tensor<1x128x768xf32>) outs(%16 : tensor<1x128x768xf32>) {
          ^bb0(%in: f32, %in_0: f32, %in_1: f32, %out: f32):
            %20 = arith.addf %in, %in_0 : f32
            %21 = arith.addf %20, %in_1 : f32
            linalg.yield %21 : f32
          } -> tensor<1x128x768xf32>
          iree_codegen.store_to_buffer %19, %11 : tensor<1x128x768xf32> into memref<1x128x768xf32, #hal.descriptor_type<storage_buffer>>
          return
        }
        iree_codegen.dispatch_config @main$async_dispatch_15_batch_matmul_1x128x768x3072_f32 {
        ^bb0(%arg0: !hal.device):
          %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
          iree_codegen.yield %x, %y, %z : index, index, index
        }
      }
    }
  }
  util.global private mutable @main$async_dispatch_15_cuda_nvptx_fb_main$async_dispatch_15_batch_matmul_1x128x768x3072_f32_buffer : !hal.buffer
  util.initializer {
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %allocator = hal.device.allocator<%device : !hal.device> : !hal.allocator
    %memory_type = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
    %buffer_usage = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage"> : i32
    %c440672256 = arith.constant 440672256 : index
    %buffer = hal.allocator.allocate<%allocator : !hal.allocator> affinity(%queue_affinity) type(%memory_type) usage(%buffer_usage) : !hal.buffer{%c440672256}
    util.global.store %buffer, @main$async_dispatch_15_cuda_nvptx_fb_main$async_dispatch_15_batch_matmul_1x128x768x3072_f32_buffer : !hal.buffer
    util.return
  }
  util.func public @main$async_dispatch_15_cuda_nvptx_fb_main$async_dispatch_15_batch_matmul_1x128x768x3072_f32(%arg0: i32) attributes {iree.abi.stub, iree.reflection = {iree.benchmark = "dispatch"}} {
    %0 = arith.index_cast %arg0 : i32 to index
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %cmd = hal.command_buffer.create device(%device : !hal.device) mode("OneShot|AllowInlineExecution") categories(Dispatch) affinity(%queue_affinity) : !hal.command_buffer
    %c786432_i32 = arith.constant 786432 : i32
    %c331087872_i32 = arith.constant 331087872 : i32
    %c434442240_i32 = arith.constant 434442240 : i32
    %main$async_dispatch_15_cuda_nvptx_fb_main$async_dispatch_15_batch_matmul_1x128x768x3072_f32_buffer = util.global.load @main$async_dispatch_15_cuda_nvptx_fb_main$async_dispatch_15_batch_matmul_1x128x768x3072_f32_buffer : !hal.buffer
    %c0 = arith.constant 0 : index
    %c2949120 = arith.constant 2949120 : index
    %c434774016 = arith.constant 434774016 : index
    %c437723136 = arith.constant 437723136 : index
    %workgroup_x, %workgroup_y, %workgroup_z = hal.executable.calculate_workgroups device(%device : !hal.device) target(@main$async_dispatch_15::@cuda_nvptx_fb::@main$async_dispatch_15_batch_matmul_1x128x768x3072_f32) : index, index, index
    %exe = hal.executable.lookup device(%device : !hal.device) executable(@main$async_dispatch_15) : !hal.executable
    %function_id = hal.executable.lookup.function target(%exe : !hal.executable) function(@main$async_dispatch_15::@cuda_nvptx_fb::@main$async_dispatch_15_batch_matmul_1x128x768x3072_f32) : i64
    %c1 = arith.constant 1 : index
    scf.for %arg1 = %c0 to %0 step %c1 {
      hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%function_id] workgroups([%workgroup_x, %workgroup_y, %workgroup_z]) constants([%c786432_i32, %c331087872_i32, %c434442240_i32]) bindings([
        (%main$async_dispatch_15_cuda_nvptx_fb_main$async_dispatch_15_batch_matmul_1x128x768x3072_f32_buffer : !hal.buffer)[%c0, %c2949120], 
        (%main$async_dispatch_15_cuda_nvptx_fb_main$async_dispatch_15_batch_matmul_1x128x768x3072_f32_buffer : !hal.buffer)[%c2949120, %c434774016], 
        (%main$async_dispatch_15_cuda_nvptx_fb_main$async_dispatch_15_batch_matmul_1x128x768x3072_f32_buffer : !hal.buffer)[%c437723136, %c2949120]
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
