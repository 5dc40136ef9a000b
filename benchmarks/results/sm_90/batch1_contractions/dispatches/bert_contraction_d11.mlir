module {
  util.global private @__device_0 = #hal.device.target<"cuda", [#hal.executable.target<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>]> : !hal.device
  hal.executable private @main$async_dispatch_11 {
    hal.executable.variant public @cuda_nvptx_fb target(<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>) {
      hal.executable.export public @main$async_dispatch_11_batch_matmul_1x128x768x768_f32 ordinal(0) layout(#hal.pipeline.layout<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) count(%arg0: !hal.device) -> (index, index, index) {
        %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
        hal.return %x, %y, %z : index, index, index
      }
      builtin.module {
        func.func @main$async_dispatch_11_batch_matmul_1x128x768x768_f32() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [32, 8, 1] subgroup_size = 32, {gpu_pipeline_options = #iree_gpu.pipeline_options<no_reduce_shared_memory_bank_conflicts = true, use_igemm_convolution = false>}>} {
          %cst = arith.constant 0.000000e+00 : f32
          %c0 = arith.constant 0 : index
          %0 = hal.interface.constant.load layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(0) : i32
          %1 = hal.interface.constant.load layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(1) : i32
          %2 = hal.interface.constant.load layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(2) : i32
          %3 = hal.interface.constant.load layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(3) : i32
          %4 = arith.index_castui %0 : i32 to index
          %5 = arith.index_castui %1 : i32 to index
          %6 = arith.index_castui %2 : i32 to index
          %7 = arith.index_castui %3 : i32 to index
          %8:4 = util.assume.int 
              %4[<umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1769472, umax = 1769472, udiv = 1769472>, <umin = 1769472, umax = 1769472, udiv = 1769472>, <umin = 1769472, umax = 1769472, udiv = 1769472>, <umin = 1769472, umax = 1769472, udiv = 1769472>, <umin = 1769472, umax = 1769472, udiv = 1769472>, <umin = 1769472, umax = 1769472, udiv = 1769472>, <umin = 1769472, umax = 1769472, udiv = 1769472>, <umin = 1769472, umax = 1769472, udiv = 1769472>, <umin = 1769472, umax = 1769472, udiv = 1769472>, <umin = 1769472, umax = 1769472, udiv = 1769472>, <umin = 1769472, umax = 1769472, udiv = 1769472>], 
              %5[<umin = 7864320, umax = 7864320, udiv = 7864320>, <umin = 36175872, umax = 36175872, udiv = 36175872>, <umin = 64487424, umax = 64487424, udiv = 64487424>, <umin = 92798976, umax = 92798976, udiv = 92798976>, <umin = 121110528, umax = 121110528, udiv = 121110528>, <umin = 149422080, umax = 149422080, udiv = 149422080>, <umin = 177733632, umax = 177733632, udiv = 177733632>, <umin = 206045184, umax = 206045184, udiv = 206045184>, <umin = 234356736, umax = 234356736, udiv = 234356736>, <umin = 262668288, umax = 262668288, udiv = 262668288>, <umin = 290979840, umax = 290979840, udiv = 290979840>, <umin = 319291392, umax = 319291392, udiv = 319291392>], 
              %6[<umin = 434755584, umax = 434755584, udiv = 434755584>, <umin = 434727936, umax = 434727936, udiv = 434727936>, <umin = 434700288, umax = 434700288, udiv = 434700288>, <umin = 434672640, umax = 434672640, udiv = 434672640>, <umin = 434644992, umax = 434644992, udiv = 434644992>, <umin = 434617344, umax = 434617344, udiv = 434617344>, <umin = 434589696, umax = 434589696, udiv = 434589696>, <umin = 434562048, umax = 434562048, udiv = 434562048>, <umin = 434534400, umax = 434534400, udiv = 434534400>, <umin = 434506752, umax = 434506752, udiv = 434506752>, <umin = 434479104, umax = 434479104, udiv = 434479104>, <umin = 434451456, umax = 434451456, udiv = 434451456>], 
              %7[<umin = 393216, umax = 393216, udiv = 393216>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 393216, umax = 393216, udiv = 393216>]
            : index, index, index, index
          %9 = hal.interface.binding.subspan layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(0) alignment(64) offset(%8#0) flags("ReadOnly|Indirect") : memref<1x128x768xf32, strided<[98304, 768, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %10 = hal.interface.binding.subspan layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%8#1) flags(ReadOnly) : memref<1x768x768xf32, strided<[589824, 768, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %11 = hal.interface.binding.subspan layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%8#2) flags(ReadOnly) : memref<768xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %12 = hal.interface.binding.subspan layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(0) alignment(64) offset(%c0) flags("ReadOnly|Indirect") : memref<1x128x768xf32, #hal.descriptor_type<storage_buffer>>
          %13 = hal.interface.binding.subspan layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(2) alignment(64) offset(%8#3) flags(Indirect) : memref<1x128x768xf32, strided<[98304, 768, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %14 = iree_codegen.load_from_buffer %9 : memref<1x128x768xf32, strided<[98304, 768, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<1x128x768xf32>
          %15 = iree_codegen.load_from_buffer %10 : memref<1x768x768xf32, strided<[589824, 768, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<1x768x768xf32>
          %16 = iree_codegen.load_from_buffer %11 : memref<768xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<768xf32>
          %17 = iree_codegen.load_from_buffer %12 : memref<1x128x768xf32, #hal.descriptor_type<storage_buffer>> -> tensor<1x128x768xf32>
          %18 = tensor.empty() : tensor<1x128x768xf32>
          %19 = linalg.fill ins(%cst : f32) outs(%18 : tensor<1x128x768xf32>) -> tensor<1x128x768xf32>
          %20 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%14, %15 : tensor<1x128x768xf32>, tensor<1x768x768xf32>) outs(%19 : tensor<1x128x768xf32>) attrs =  {lowering_config = #iree_gpu.lowering_config<{reduction = [0, 0, 0, 32], thread = [1, 1, 16, 0], workgroup = [0, 32, 128, 1]}>, root_op = #iree_codegen.root_op<set = 0>} {
          ^bb0(%in: f32, %in_0: f32, %out: f32):
            %22 = arith.mulf %in, %in_0 : f32
            %23 = arith.addf %out, %22 : f32
            linalg.yield %23 : f32
          } -> tensor<1x128x768xf32>
          %21 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%20, %16, %17 : tensor<1x128x768xf32>, tensor<768xf32>, tensor<1x128x768xf32>) outs(%18 : tensor<1x128x768xf32>) {
          ^bb0(%in: f32, %in_0: f32, %in_1: f32, %out: f32):
            %22 = arith.addf %in, %in_0 : f32
            %23 = arith.addf %22, %in_1 : f32
            linalg.yield %23 : f32
          } -> tensor<1x128x768xf32>
          iree_codegen.store_to_buffer %21, %13 : tensor<1x128x768xf32> into memref<1x128x768xf32, strided<[98304, 768, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          return
        }
        iree_codegen.dispatch_config @main$async_dispatch_11_batch_matmul_1x128x768x768_f32 {
        ^bb0(%arg0: !hal.device):
          %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
          iree_codegen.yield %x, %y, %z : index, index, index
        }
      }
    }
  }
  util.global private mutable @main$async_dispatch_11_cuda_nvptx_fb_main$async_dispatch_11_batch_matmul_1x128x768x768_f32_buffer : !hal.buffer
  util.initializer {
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %allocator = hal.device.allocator<%device : !hal.device> : !hal.allocator
    %memory_type = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
    %buffer_usage = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage"> : i32
    %c440672256 = arith.constant 440672256 : index
    %buffer = hal.allocator.allocate<%allocator : !hal.allocator> affinity(%queue_affinity) type(%memory_type) usage(%buffer_usage) : !hal.buffer{%c440672256}
    util.global.store %buffer, @main$async_dispatch_11_cuda_nvptx_fb_main$async_dispatch_11_batch_matmul_1x128x768x768_f32_buffer : !hal.buffer
    util.return
  }
  util.func public @main$async_dispatch_11_cuda_nvptx_fb_main$async_dispatch_11_batch_matmul_1x128x768x768_f32(%arg0: i32) attributes {iree.abi.stub, iree.reflection = {iree.benchmark = "dispatch"}} {
    %0 = arith.index_cast %arg0 : i32 to index
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %cmd = hal.command_buffer.create device(%device : !hal.device) mode("OneShot|AllowInlineExecution") categories(Dispatch) affinity(%queue_affinity) : !hal.command_buffer
    %c1769472_i32 = arith.constant 1769472 : i32
    %c319291392_i32 = arith.constant 319291392 : i32
    %c434451456_i32 = arith.constant 434451456 : i32
    %c393216_i32 = arith.constant 393216 : i32
    %main$async_dispatch_11_cuda_nvptx_fb_main$async_dispatch_11_batch_matmul_1x128x768x768_f32_buffer = util.global.load @main$async_dispatch_11_cuda_nvptx_fb_main$async_dispatch_11_batch_matmul_1x128x768x768_f32_buffer : !hal.buffer
    %c0 = arith.constant 0 : index
    %c2949120 = arith.constant 2949120 : index
    %c434774016 = arith.constant 434774016 : index
    %c437723136 = arith.constant 437723136 : index
    %workgroup_x, %workgroup_y, %workgroup_z = hal.executable.calculate_workgroups device(%device : !hal.device) target(@main$async_dispatch_11::@cuda_nvptx_fb::@main$async_dispatch_11_batch_matmul_1x128x768x768_f32) : index, index, index
    %exe = hal.executable.lookup device(%device : !hal.device) executable(@main$async_dispatch_11) : !hal.executable
    %function_id = hal.executable.lookup.function target(%exe : !hal.executable) function(@main$async_dispatch_11::@cuda_nvptx_fb::@main$async_dispatch_11_batch_matmul_1x128x768x768_f32) : i64
    %c1 = arith.constant 1 : index
    scf.for %arg1 = %c0 to %0 step %c1 {
      hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%function_id] workgroups([%workgroup_x, %workgroup_y, %workgroup_z]) constants([%c1769472_i32, %c319291392_i32, %c434451456_i32, %c393216_i32]) bindings([
        (%main$async_dispatch_11_cuda_nvptx_fb_main$async_dispatch_11_batch_matmul_1x128x768x768_f32_buffer : !hal.buffer)[%c0, %c2949120], 
        (%main$async_dispatch_11_cuda_nvptx_fb_main$async_dispatch_11_batch_matmul_1x128x768x768_f32_buffer : !hal.buffer)[%c2949120, %c434774016], 
        (%main$async_dispatch_11_cuda_nvptx_fb_main$async_dispatch_11_batch_matmul_1x128x768x768_f32_buffer : !hal.buffer)[%c437723136, %c2949120]
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
