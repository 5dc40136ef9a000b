module {
  util.global private @__device_0 = #hal.device.target<"cuda", [#hal.executable.target<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>]> : !hal.device
  hal.executable private @main$async_dispatch_10 {
    hal.executable.variant public @cuda_nvptx_fb target(<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>) {
      hal.executable.export public @main$async_dispatch_10_elementwise_transpose_197x768_f32 ordinal(0) layout(#hal.pipeline.layout<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) count(%arg0: !hal.device) -> (index, index, index) {
        %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
        hal.return %x, %y, %z : index, index, index
      }
      builtin.module {
        func.func @main$async_dispatch_10_elementwise_transpose_197x768_f32() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [32, 1, 1] subgroup_size = 32>} {
          %0 = hal.interface.constant.load layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(0) : i32
          %1 = hal.interface.constant.load layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(1) : i32
          %2 = hal.interface.constant.load layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(2) : i32
          %3 = arith.index_castui %0 : i32 to index
          %4 = arith.index_castui %1 : i32 to index
          %5 = arith.index_castui %2 : i32 to index
          %6:3 = util.assume.int 
              %3[<umin = 3025920, umax = 3025920, udiv = 3025920>, <umin = 3491648, umax = 3491648, udiv = 3491648>, <umin = 3491648, umax = 3491648, udiv = 3491648>, <umin = 3491648, umax = 3491648, udiv = 3491648>, <umin = 3491648, umax = 3491648, udiv = 3491648>, <umin = 3491648, umax = 3491648, udiv = 3491648>, <umin = 3491648, umax = 3491648, udiv = 3491648>, <umin = 3491648, umax = 3491648, udiv = 3491648>, <umin = 3491648, umax = 3491648, udiv = 3491648>, <umin = 3491648, umax = 3491648, udiv = 3491648>, <umin = 3491648, umax = 3491648, udiv = 3491648>, <umin = 3491648, umax = 3491648, udiv = 3491648>], 
              %4[<umin = 346854336, umax = 346854336, udiv = 346854336>, <umin = 346826688, umax = 346826688, udiv = 346826688>, <umin = 346799040, umax = 346799040, udiv = 346799040>, <umin = 346771392, umax = 346771392, udiv = 346771392>, <umin = 346743744, umax = 346743744, udiv = 346743744>, <umin = 346716096, umax = 346716096, udiv = 346716096>, <umin = 346688448, umax = 346688448, udiv = 346688448>, <umin = 346660800, umax = 346660800, udiv = 346660800>, <umin = 346633152, umax = 346633152, udiv = 346633152>, <umin = 346605504, umax = 346605504, udiv = 346605504>, <umin = 346577856, umax = 346577856, udiv = 346577856>, <umin = 346550208, umax = 346550208, udiv = 346550208>], 
              %5[<umin = 2420736, umax = 2420736, udiv = 2420736>, <umin = 1676096, umax = 1676096, udiv = 1676096>, <umin = 1676096, umax = 1676096, udiv = 1676096>, <umin = 1676096, umax = 1676096, udiv = 1676096>, <umin = 1676096, umax = 1676096, udiv = 1676096>, <umin = 1676096, umax = 1676096, udiv = 1676096>, <umin = 1676096, umax = 1676096, udiv = 1676096>, <umin = 1676096, umax = 1676096, udiv = 1676096>, <umin = 1676096, umax = 1676096, udiv = 1676096>, <umin = 1676096, umax = 1676096, udiv = 1676096>, <umin = 1676096, umax = 1676096, udiv = 1676096>, <umin = 1676096, umax = 1676096, udiv = 1676096>]
            : index, index, index
          %7 = hal.interface.binding.subspan layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(0) alignment(64) offset(%6#0) flags("ReadOnly|Indirect") : memref<197x768xf32, strided<[768, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %8 = hal.interface.binding.subspan layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%6#1) flags(ReadOnly) : memref<768xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %9 = hal.interface.binding.subspan layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(2) alignment(64) offset(%6#2) flags(Indirect) : memref<768x197xf32, strided<[197, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %10 = iree_codegen.load_from_buffer %7 : memref<197x768xf32, strided<[768, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<197x768xf32>
          %11 = iree_codegen.load_from_buffer %8 : memref<768xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<768xf32>
          %12 = tensor.empty() : tensor<768x197xf32>
          %13 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]} ins(%10, %11 : tensor<197x768xf32>, tensor<768xf32>) outs(%12 : tensor<768x197xf32>) attrs =  {lowering_config = #iree_gpu.lowering_config<{thread = [1, 4], workgroup = [1, 128]}>, root_op = #iree_codegen.root_op<set = 0>} {
          ^bb0(%in: f32, %in_0: f32, %out: f32):
            %14 = arith.addf %in, %in_0 : f32
            linalg.yield %14 : f32
          } -> tensor<768x197xf32>
          iree_codegen.store_to_buffer %13, %9 : tensor<768x197xf32> into memref<768x197xf32, strided<[197, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          return
        }
        iree_codegen.dispatch_config @main$async_dispatch_10_elementwise_transpose_197x768_f32 {
        ^bb0(%arg0: !hal.device):
          %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
          iree_codegen.yield %x, %y, %z : index, index, index
        }
      }
    }
  }
  util.global private mutable @main$async_dispatch_10_cuda_nvptx_fb_main$async_dispatch_10_elementwise_transpose_197x768_f32_buffer : !hal.buffer
  util.initializer {
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %allocator = hal.device.allocator<%device : !hal.device> : !hal.allocator
    %memory_type = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
    %buffer_usage = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage"> : i32
    %c356277248 = arith.constant 356277248 : index
    %buffer = hal.allocator.allocate<%allocator : !hal.allocator> affinity(%queue_affinity) type(%memory_type) usage(%buffer_usage) : !hal.buffer{%c356277248}
    util.global.store %buffer, @main$async_dispatch_10_cuda_nvptx_fb_main$async_dispatch_10_elementwise_transpose_197x768_f32_buffer : !hal.buffer
    util.return
  }
  util.func public @main$async_dispatch_10_cuda_nvptx_fb_main$async_dispatch_10_elementwise_transpose_197x768_f32(%arg0: i32) attributes {iree.abi.stub, iree.reflection = {iree.benchmark = "dispatch"}} {
    %0 = arith.index_cast %arg0 : i32 to index
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %cmd = hal.command_buffer.create device(%device : !hal.device) mode("OneShot|AllowInlineExecution") categories(Dispatch) affinity(%queue_affinity) : !hal.command_buffer
    %c3491648_i32 = arith.constant 3491648 : i32
    %c346550208_i32 = arith.constant 346550208 : i32
    %c1676096_i32 = arith.constant 1676096 : i32
    %main$async_dispatch_10_cuda_nvptx_fb_main$async_dispatch_10_elementwise_transpose_197x768_f32_buffer = util.global.load @main$async_dispatch_10_cuda_nvptx_fb_main$async_dispatch_10_elementwise_transpose_197x768_f32_buffer : !hal.buffer
    %c0 = arith.constant 0 : index
    %c4702016 = arith.constant 4702016 : index
    %c4702208 = arith.constant 4702208 : index
    %c346872768 = arith.constant 346872768 : index
    %c351575040 = arith.constant 351575040 : index
    %workgroup_x, %workgroup_y, %workgroup_z = hal.executable.calculate_workgroups device(%device : !hal.device) target(@main$async_dispatch_10::@cuda_nvptx_fb::@main$async_dispatch_10_elementwise_transpose_197x768_f32) : index, index, index
    %exe = hal.executable.lookup device(%device : !hal.device) executable(@main$async_dispatch_10) : !hal.executable
    %function_id = hal.executable.lookup.function target(%exe : !hal.executable) function(@main$async_dispatch_10::@cuda_nvptx_fb::@main$async_dispatch_10_elementwise_transpose_197x768_f32) : i64
    %c1 = arith.constant 1 : index
    scf.for %arg1 = %c0 to %0 step %c1 {
      hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%function_id] workgroups([%workgroup_x, %workgroup_y, %workgroup_z]) constants([%c3491648_i32, %c346550208_i32, %c1676096_i32]) bindings([
        (%main$async_dispatch_10_cuda_nvptx_fb_main$async_dispatch_10_elementwise_transpose_197x768_f32_buffer : !hal.buffer)[%c0, %c4702016], 
        (%main$async_dispatch_10_cuda_nvptx_fb_main$async_dispatch_10_elementwise_transpose_197x768_f32_buffer : !hal.buffer)[%c4702208, %c346872768], 
        (%main$async_dispatch_10_cuda_nvptx_fb_main$async_dispatch_10_elementwise_transpose_197x768_f32_buffer : !hal.buffer)[%c351575040, %c4702016]
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
