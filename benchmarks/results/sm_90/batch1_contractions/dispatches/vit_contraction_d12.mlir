module {
  util.global private @__device_0 = #hal.device.target<"cuda", [#hal.executable.target<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>]> : !hal.device
  hal.executable private @main$async_dispatch_12 {
    hal.executable.variant public @cuda_nvptx_fb target(<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>) {
      hal.executable.export public @main$async_dispatch_12_batch_matmul_1x197x768x768_f32 ordinal(0) layout(#hal.pipeline.layout<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) count(%arg0: !hal.device) -> (index, index, index) {
        %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
        hal.return %x, %y, %z : index, index, index
      }
      builtin.module {
        func.func @main$async_dispatch_12_batch_matmul_1x197x768x768_f32() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [32, 8, 1] subgroup_size = 32, {gpu_pipeline_options = #iree_gpu.pipeline_options<no_reduce_shared_memory_bank_conflicts = true, use_igemm_convolution = false>}>} {
          %cst = arith.constant 0.000000e+00 : f32
          %c0 = arith.constant 0 : index
          %c605184 = arith.constant 605184 : index
          %0 = hal.interface.constant.load layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(0) : i32
          %1 = hal.interface.constant.load layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(1) : i32
          %2 = hal.interface.constant.load layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(2) : i32
          %3 = arith.index_castui %0 : i32 to index
          %4 = arith.index_castui %1 : i32 to index
          %5 = arith.index_castui %2 : i32 to index
          %6:3 = util.assume.int 
              %3[<umin = 3025920, umax = 3025920, udiv = 3025920>, <umin = 2886464, umax = 2886464, udiv = 2886464>, <umin = 2886464, umax = 2886464, udiv = 2886464>, <umin = 2886464, umax = 2886464, udiv = 2886464>, <umin = 2886464, umax = 2886464, udiv = 2886464>, <umin = 2886464, umax = 2886464, udiv = 2886464>, <umin = 2886464, umax = 2886464, udiv = 2886464>, <umin = 2886464, umax = 2886464, udiv = 2886464>, <umin = 2886464, umax = 2886464, udiv = 2886464>, <umin = 2886464, umax = 2886464, udiv = 2886464>, <umin = 2886464, umax = 2886464, udiv = 2886464>, <umin = 2886464, umax = 2886464, udiv = 2886464>], 
              %4[<umin = 7683072, umax = 7683072, udiv = 7683072>, <umin = 35994624, umax = 35994624, udiv = 35994624>, <umin = 64306176, umax = 64306176, udiv = 64306176>, <umin = 92617728, umax = 92617728, udiv = 92617728>, <umin = 120929280, umax = 120929280, udiv = 120929280>, <umin = 149240832, umax = 149240832, udiv = 149240832>, <umin = 177552384, umax = 177552384, udiv = 177552384>, <umin = 205863936, umax = 205863936, udiv = 205863936>, <umin = 234175488, umax = 234175488, udiv = 234175488>, <umin = 262487040, umax = 262487040, udiv = 262487040>, <umin = 290798592, umax = 290798592, udiv = 290798592>, <umin = 319110144, umax = 319110144, udiv = 319110144>], 
              %5[<umin = 346851264, umax = 346851264, udiv = 346851264>, <umin = 346823616, umax = 346823616, udiv = 346823616>, <umin = 346795968, umax = 346795968, udiv = 346795968>, <umin = 346768320, umax = 346768320, udiv = 346768320>, <umin = 346740672, umax = 346740672, udiv = 346740672>, <umin = 346713024, umax = 346713024, udiv = 346713024>, <umin = 346685376, umax = 346685376, udiv = 346685376>, <umin = 346657728, umax = 346657728, udiv = 346657728>, <umin = 346630080, umax = 346630080, udiv = 346630080>, <umin = 346602432, umax = 346602432, udiv = 346602432>, <umin = 346574784, umax = 346574784, udiv = 346574784>, <umin = 346547136, umax = 346547136, udiv = 346547136>]
            : index, index, index
          %7 = hal.interface.binding.subspan layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(0) alignment(64) offset(%6#0) flags("ReadOnly|Indirect") : memref<1x197x768xf32, strided<[151296, 768, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %8 = hal.interface.binding.subspan layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%6#1) flags(ReadOnly) : memref<1x768x768xf32, strided<[589824, 768, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %9 = hal.interface.binding.subspan layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%6#2) flags(ReadOnly) : memref<768xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %10 = hal.interface.binding.subspan layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(0) alignment(64) offset(%c0) flags("ReadOnly|Indirect") : memref<1x197x768xf32, #hal.descriptor_type<storage_buffer>>
          %11 = hal.interface.binding.subspan layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(2) alignment(64) offset(%c605184) flags(Indirect) : memref<1x197x768xf32, strided<[151296, 768, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %12 = iree_codegen.load_from_buffer %7 : memref<1x197x768xf32, strided<[151296, 768, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<1x197x768xf32>
          %13 = iree_codegen.load_from_buffer %8 : memref<1x768x768xf32, strided<[589824, 768, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<1x768x768xf32>
          %14 = iree_codegen.load_from_buffer %9 : memref<768xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<768xf32>
          %15 = iree_codegen.load_from_buffer %10 : memref<1x197x768xf32, #hal.descriptor_type<storage_buffer>> -> tensor<1x197x768xf32>
          %16 = tensor.empty() : tensor<1x197x768xf32>
          %17 = linalg.fill ins(%cst : f32) outs(%16 : tensor<1x197x768xf32>) -> tensor<1x197x768xf32>
          %18 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%12, %13 : tensor<1x197x768xf32>, tensor<1x768x768xf32>) outs(%17 : tensor<1x197x768xf32>) attrs =  {lowering_config = #iree_gpu.lowering_config<{reduction = [0, 0, 0, 32], thread = [1, 1, 16, 0], workgroup = [0, 32, 128, 1]}>, root_op = #iree_codegen.root_op<set = 0>} {
          ^bb0(%in: f32, %in_0: f32, %out: f32):
            %20 = arith.mulf %in, %in_0 : f32
            %21 = arith.addf %out, %20 : f32
            linalg.yield %21 : f32
          } -> tensor<1x197x768xf32>
          %19 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%18, %14, %15 : tensor<1x197x768xf32>, tensor<768xf32>, tensor<1x197x768xf32>) outs(%16 : tensor<1x197x768xf32>) {
          ^bb0(%in: f32, %in_0: f32, %in_1: f32, %out: f32):
            %20 = arith.addf %in, %in_0 : f32
            %21 = arith.addf %20, %in_1 : f32
            linalg.yield %21 : f32
          } -> tensor<1x197x768xf32>
          iree_codegen.store_to_buffer %19, %11 : tensor<1x197x768xf32> into memref<1x197x768xf32, strided<[151296, 768, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          return
        }
        iree_codegen.dispatch_config @main$async_dispatch_12_batch_matmul_1x197x768x768_f32 {
        ^bb0(%arg0: !hal.device):
          %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
          iree_codegen.yield %x, %y, %z : index, index, index
        }
      }
    }
  }
  util.global private mutable @main$async_dispatch_12_cuda_nvptx_fb_main$async_dispatch_12_batch_matmul_1x197x768x768_f32_buffer : !hal.buffer
  util.initializer {
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %allocator = hal.device.allocator<%device : !hal.device> : !hal.allocator
    %memory_type = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
    %buffer_usage = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage"> : i32
    %c356277248 = arith.constant 356277248 : index
    %buffer = hal.allocator.allocate<%allocator : !hal.allocator> affinity(%queue_affinity) type(%memory_type) usage(%buffer_usage) : !hal.buffer{%c356277248}
    util.global.store %buffer, @main$async_dispatch_12_cuda_nvptx_fb_main$async_dispatch_12_batch_matmul_1x197x768x768_f32_buffer : !hal.buffer
    util.return
  }
  util.func public @main$async_dispatch_12_cuda_nvptx_fb_main$async_dispatch_12_batch_matmul_1x197x768x768_f32(%arg0: i32) attributes {iree.abi.stub, iree.reflection = {iree.benchmark = "dispatch"}} {
    %0 = arith.index_cast %arg0 : i32 to index
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %cmd = hal.command_buffer.create device(%device : !hal.device) mode("OneShot|AllowInlineExecution") categories(Dispatch) affinity(%queue_affinity) : !hal.command_buffer
    %c2886464_i32 = arith.constant 2886464 : i32
    %c319110144_i32 = arith.constant 319110144 : i32
    %c346547136_i32 = arith.constant 346547136 : i32
    %main$async_dispatch_12_cuda_nvptx_fb_main$async_dispatch_12_batch_matmul_1x197x768x768_f32_buffer = util.global.load @main$async_dispatch_12_cuda_nvptx_fb_main$async_dispatch_12_batch_matmul_1x197x768x768_f32_buffer : !hal.buffer
    %c0 = arith.constant 0 : index
    %c4702016 = arith.constant 4702016 : index
    %c4702208 = arith.constant 4702208 : index
    %c346872768 = arith.constant 346872768 : index
    %c351575040 = arith.constant 351575040 : index
    %workgroup_x, %workgroup_y, %workgroup_z = hal.executable.calculate_workgroups device(%device : !hal.device) target(@main$async_dispatch_12::@cuda_nvptx_fb::@main$async_dispatch_12_batch_matmul_1x197x768x768_f32) : index, index, index
    %exe = hal.executable.lookup device(%device : !hal.device) executable(@main$async_dispatch_12) : !hal.executable
    %function_id = hal.executable.lookup.function target(%exe : !hal.executable) function(@main$async_dispatch_12::@cuda_nvptx_fb::@main$async_dispatch_12_batch_matmul_1x197x768x768_f32) : i64
    %c1 = arith.constant 1 : index
    scf.for %arg1 = %c0 to %0 step %c1 {
      hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%function_id] workgroups([%workgroup_x, %workgroup_y, %workgroup_z]) constants([%c2886464_i32, %c319110144_i32, %c346547136_i32]) bindings([
        (%main$async_dispatch_12_cuda_nvptx_fb_main$async_dispatch_12_batch_matmul_1x197x768x768_f32_buffer : !hal.buffer)[%c0, %c4702016], 
        (%main$async_dispatch_12_cuda_nvptx_fb_main$async_dispatch_12_batch_matmul_1x197x768x768_f32_buffer : !hal.buffer)[%c4702208, %c346872768], 
        (%main$async_dispatch_12_cuda_nvptx_fb_main$async_dispatch_12_batch_matmul_1x197x768x768_f32_buffer : !hal.buffer)[%c351575040, %c4702016]
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
