module {
  util.global private @__device_0 = #hal.device.target<"cuda", [#hal.executable.target<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>]> : !hal.device
  hal.executable private @main$async_dispatch_9 {
    hal.executable.variant public @cuda_nvptx_fb target(<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>) {
      hal.executable.export public @main$async_dispatch_9_elementwise_transpose_128x768_f32 ordinal(0) layout(#hal.pipeline.layout<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) count(%arg0: !hal.device) -> (index, index, index) {
        %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
        hal.return %x, %y, %z : index, index, index
      }
      builtin.module {
        func.func @main$async_dispatch_9_elementwise_transpose_128x768_f32() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [8, 32, 1] subgroup_size = 32, {gpu_pipeline_options = #iree_gpu.pipeline_options<no_reduce_shared_memory_bank_conflicts = false, use_igemm_convolution = false>}>} {
          %0 = hal.interface.constant.load layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(0) : i32
          %1 = hal.interface.constant.load layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(1) : i32
          %2 = hal.interface.constant.load layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(2) : i32
          %3 = arith.index_castui %0 : i32 to index
          %4 = arith.index_castui %1 : i32 to index
          %5 = arith.index_castui %2 : i32 to index
          %6:3 = util.assume.int 
              %3[<umin = 1572864, umax = 1572864, udiv = 1572864>, <umin = 1769472, umax = 1769472, udiv = 1769472>, <umin = 1769472, umax = 1769472, udiv = 1769472>, <umin = 1769472, umax = 1769472, udiv = 1769472>, <umin = 1769472, umax = 1769472, udiv = 1769472>, <umin = 1769472, umax = 1769472, udiv = 1769472>, <umin = 1769472, umax = 1769472, udiv = 1769472>, <umin = 1769472, umax = 1769472, udiv = 1769472>, <umin = 1769472, umax = 1769472, udiv = 1769472>, <umin = 1769472, umax = 1769472, udiv = 1769472>, <umin = 1769472, umax = 1769472, udiv = 1769472>, <umin = 1769472, umax = 1769472, udiv = 1769472>], 
              %4[<umin = 434758656, umax = 434758656, udiv = 434758656>, <umin = 434731008, umax = 434731008, udiv = 434731008>, <umin = 434703360, umax = 434703360, udiv = 434703360>, <umin = 434675712, umax = 434675712, udiv = 434675712>, <umin = 434648064, umax = 434648064, udiv = 434648064>, <umin = 434620416, umax = 434620416, udiv = 434620416>, <umin = 434592768, umax = 434592768, udiv = 434592768>, <umin = 434565120, umax = 434565120, udiv = 434565120>, <umin = 434537472, umax = 434537472, udiv = 434537472>, <umin = 434509824, umax = 434509824, udiv = 434509824>, <umin = 434482176, umax = 434482176, udiv = 434482176>, <umin = 434454528, umax = 434454528, udiv = 434454528>], 
              %5[<umin = 1966080, umax = 1966080, udiv = 1966080>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>]
            : index, index, index
          %7 = hal.interface.binding.subspan layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(0) alignment(64) offset(%6#0) flags("ReadOnly|Indirect") : memref<128x768xf32, strided<[768, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %8 = hal.interface.binding.subspan layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%6#1) flags(ReadOnly) : memref<768xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %9 = hal.interface.binding.subspan layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(2) alignment(64) offset(%6#2) flags(Indirect) : memref<768x128xf32, strided<[128, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %10 = iree_codegen.load_from_buffer %7 : memref<128x768xf32, strided<[768, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<128x768xf32>
          %11 = iree_codegen.load_from_buffer %8 : memref<768xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<768xf32>
          %12 = tensor.empty() : tensor<768x128xf32>
          %13 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]} ins(%10, %11 : tensor<128x768xf32>, tensor<768xf32>) outs(%12 : tensor<768x128xf32>) attrs =  {lowering_config = #iree_gpu.lowering_config<{promote_operands = [2], thread = [1, 4], workgroup = [32, 32]}>, root_op = #iree_codegen.root_op<set = 0>} {
          ^bb0(%in: f32, %in_0: f32, %out: f32):
            %14 = arith.addf %in, %in_0 : f32
            linalg.yield %14 : f32
          } -> tensor<768x128xf32>
          iree_codegen.store_to_buffer %13, %9 : tensor<768x128xf32> into memref<768x128xf32, strided<[128, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          return
        }
        iree_codegen.dispatch_config @main$async_dispatch_9_elementwise_transpose_128x768_f32 {
        ^bb0(%arg0: !hal.device):
          %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
          iree_codegen.yield %x, %y, %z : index, index, index
        }
      }
    }
  }
  util.global private mutable @main$async_dispatch_9_cuda_nvptx_fb_main$async_dispatch_9_elementwise_transpose_128x768_f32_buffer : !hal.buffer
  util.initializer {
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %allocator = hal.device.allocator<%device : !hal.device> : !hal.allocator
    %memory_type = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
    %buffer_usage = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage"> : i32
    %c440672256 = arith.constant 440672256 : index
    %buffer = hal.allocator.allocate<%allocator : !hal.allocator> affinity(%queue_affinity) type(%memory_type) usage(%buffer_usage) : !hal.buffer{%c440672256}
    util.global.store %buffer, @main$async_dispatch_9_cuda_nvptx_fb_main$async_dispatch_9_elementwise_transpose_128x768_f32_buffer : !hal.buffer
    util.return
  }
  util.func public @main$async_dispatch_9_cuda_nvptx_fb_main$async_dispatch_9_elementwise_transpose_128x768_f32(%arg0: i32) attributes {iree.abi.stub, iree.reflection = {iree.benchmark = "dispatch"}} {
    %0 = arith.index_cast %arg0 : i32 to index
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %cmd = hal.command_buffer.create device(%device : !hal.device) mode("OneShot|AllowInlineExecution") categories(Dispatch) affinity(%queue_affinity) : !hal.command_buffer
    %c1769472_i32 = arith.constant 1769472 : i32
    %c434454528_i32 = arith.constant 434454528 : i32
    %c1376256_i32 = arith.constant 1376256 : i32
    %main$async_dispatch_9_cuda_nvptx_fb_main$async_dispatch_9_elementwise_transpose_128x768_f32_buffer = util.global.load @main$async_dispatch_9_cuda_nvptx_fb_main$async_dispatch_9_elementwise_transpose_128x768_f32_buffer : !hal.buffer
    %c0 = arith.constant 0 : index
    %c2949120 = arith.constant 2949120 : index
    %c434774016 = arith.constant 434774016 : index
    %c437723136 = arith.constant 437723136 : index
    %workgroup_x, %workgroup_y, %workgroup_z = hal.executable.calculate_workgroups device(%device : !hal.device) target(@main$async_dispatch_9::@cuda_nvptx_fb::@main$async_dispatch_9_elementwise_transpose_128x768_f32) : index, index, index
    %exe = hal.executable.lookup device(%device : !hal.device) executable(@main$async_dispatch_9) : !hal.executable
    %function_id = hal.executable.lookup.function target(%exe : !hal.executable) function(@main$async_dispatch_9::@cuda_nvptx_fb::@main$async_dispatch_9_elementwise_transpose_128x768_f32) : i64
    %c1 = arith.constant 1 : index
    scf.for %arg1 = %c0 to %0 step %c1 {
      hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%function_id] workgroups([%workgroup_x, %workgroup_y, %workgroup_z]) constants([%c1769472_i32, %c434454528_i32, %c1376256_i32]) bindings([
        (%main$async_dispatch_9_cuda_nvptx_fb_main$async_dispatch_9_elementwise_transpose_128x768_f32_buffer : !hal.buffer)[%c0, %c2949120], 
        (%main$async_dispatch_9_cuda_nvptx_fb_main$async_dispatch_9_elementwise_transpose_128x768_f32_buffer : !hal.buffer)[%c2949120, %c434774016], 
        (%main$async_dispatch_9_cuda_nvptx_fb_main$async_dispatch_9_elementwise_transpose_128x768_f32_buffer : !hal.buffer)[%c437723136, %c2949120]
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
