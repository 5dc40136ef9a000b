module {
  util.global private @__device_0 = #hal.device.target<"cuda", [#hal.executable.target<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>]> : !hal.device
  hal.executable private @main$async_dispatch_18 {
    hal.executable.variant public @cuda_nvptx_fb target(<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>) {
      hal.executable.export public @main$async_dispatch_18_conv_128x28x28x128x3x3_f32 ordinal(0) layout(#hal.pipeline.layout<constants = 5, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) count(%arg0: !hal.device) -> (index, index, index) {
        %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
        hal.return %x, %y, %z : index, index, index
      }
      builtin.module {
        func.func @main$async_dispatch_18_conv_128x28x28x128x3x3_f32() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [32, 1, 1] subgroup_size = 32>} {
          %cst = arith.constant 0.000000e+00 : f32
          %c4096 = arith.constant 4096 : index
          %c0 = arith.constant 0 : index
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
              %5[<umin = 2007040, umax = 2007040, udiv = 2007040>, <umin = 3612672, umax = 3612672, udiv = 3612672>, <umin = 3612672, umax = 3612672, udiv = 3612672>], 
              %6[<umin = 2878144, umax = 2878144, udiv = 2878144>, <umin = 3992256, umax = 3992256, udiv = 3992256>, <umin = 5106368, umax = 5106368, udiv = 5106368>], 
              %7[<umin = 29184, umax = 29184, udiv = 29184>, <umin = 38400, umax = 38400, udiv = 38400>, <umin = 47616, umax = 47616, udiv = 47616>], 
              %8[<umin = 29696, umax = 29696, udiv = 29696>, <umin = 38912, umax = 38912, udiv = 38912>, <umin = 48128, umax = 48128, udiv = 48128>], 
              %9[<umin = 30208, umax = 30208, udiv = 30208>, <umin = 39424, umax = 39424, udiv = 39424>, <umin = 48640, umax = 48640, udiv = 48640>]
            : index, index, index, index, index
          %11 = hal.interface.binding.subspan layout(<constants = 5, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(0) alignment(64) offset(%10#0) flags("ReadOnly|Indirect") : memref<128x30x30xf32, strided<[900, 30, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %12 = hal.interface.binding.subspan layout(<constants = 5, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%10#1) flags(ReadOnly) : memref<128x128x3x3xf32, strided<[1152, 9, 3, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %13 = hal.interface.binding.subspan layout(<constants = 5, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%10#2) flags(ReadOnly) : memref<128xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %14 = hal.interface.binding.subspan layout(<constants = 5, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(2) alignment(64) offset(%c4096) flags(ReadOnly) : memref<128xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %15 = hal.interface.binding.subspan layout(<constants = 5, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%10#3) flags(ReadOnly) : memref<128xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %16 = hal.interface.binding.subspan layout(<constants = 5, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%10#4) flags(ReadOnly) : memref<128xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %17 = hal.interface.binding.subspan layout(<constants = 5, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(3) alignment(64) offset(%c0) flags(Indirect) : memref<128x28x28xf32, #hal.descriptor_type<storage_buffer>>
          %18 = iree_codegen.load_from_buffer %11 : memref<128x30x30xf32, strided<[900, 30, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<128x30x30xf32>
          %19 = iree_codegen.load_from_buffer %12 : memref<128x128x3x3xf32, strided<[1152, 9, 3, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<128x128x3x3xf32>
          %20 = iree_codegen.load_from_buffer %13 : memref<128xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<128xf32>
          %21 = iree_codegen.load_from_buffer %14 : memref<128xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<128xf32>
          %22 = iree_codegen.load_from_buffer %15 : memref<128xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<128xf32>
          %23 = iree_codegen.load_from_buffer %16 : memref<128xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<128xf32>
          %24 = tensor.empty() : tensor<128x28x28xf32>
          %25 = linalg.fill ins(%cst : f32) outs(%24 : tensor<128x28x28xf32>) -> tensor<128x28x28xf32>
          %26 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d1 + d4, d2 + d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%18, %19 : tensor<128x30x30xf32>, tensor<128x128x3x3xf32>) outs(%25 : tensor<128x28x28xf32>) attrs =  {lowering_config = #iree_gpu.lowering_config<{reduction = [0, 0, 0, 1, 3, 3], thread = [1, 1, 1, 0, 0, 0], workgroup = [2, 4, 4, 0, 0, 0]}>, root_op = #iree_codegen.root_op<set = 0>} {
          ^bb0(%in: f32, %in_0: f32, %out: f32):
            %28 = arith.mulf %in, %in_0 : f32
            %29 = arith.addf %out, %28 : f32
            linalg.yield %29 : f32
          } -> tensor<128x28x28xf32>
          %27 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%26, %20, %21, %22, %23 : tensor<128x28x28xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>) outs(%24 : tensor<128x28x28xf32>) {
          ^bb0(%in: f32, %in_0: f32, %in_1: f32, %in_2: f32, %in_3: f32, %out: f32):
            %28 = arith.subf %in, %in_0 : f32
            %29 = arith.mulf %28, %in_1 : f32
            %30 = arith.mulf %29, %in_2 : f32
            %31 = arith.addf %30, %in_3 : f32
            %32 = arith.cmpf ugt, %31, %cst : f32
            %33 = arith.select %32, %31, %cst : f32
            linalg.yield %33 : f32
          } -> tensor<128x28x28xf32>
          iree_codegen.store_to_buffer %27, %17 : tensor<128x28x28xf32> into memref<128x28x28xf32, #hal.descriptor_type<storage_buffer>>
          return
        }
        iree_codegen.dispatch_config @main$async_dispatch_18_conv_128x28x28x128x3x3_f32 {
        ^bb0(%arg0: !hal.device):
          %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
          iree_codegen.yield %x, %y, %z : index, index, index
        }
      }
    }
  }
  util.global private mutable @main$async_dispatch_18_cuda_nvptx_fb_main$async_dispatch_18_conv_128x28x28x128x3x3_f32_buffer : !hal.buffer
  util.initializer {
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %allocator = hal.device.allocator<%device : !hal.device> : !hal.allocator
    %memory_type = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
    %buffer_usage = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage"> : i32
    %c120240640 = arith.constant 120240640 : index
    %buffer = hal.allocator.allocate<%allocator : !hal.allocator> affinity(%queue_affinity) type(%memory_type) usage(%buffer_usage) : !hal.buffer{%c120240640}
    util.global.store %buffer, @main$async_dispatch_18_cuda_nvptx_fb_main$async_dispatch_18_conv_128x28x28x128x3x3_f32_buffer : !hal.buffer
    util.return
  }
  util.func public @main$async_dispatch_18_cuda_nvptx_fb_main$async_dispatch_18_conv_128x28x28x128x3x3_f32(%arg0: i32) attributes {iree.abi.stub, iree.reflection = {iree.benchmark = "dispatch"}} {
    %0 = arith.index_cast %arg0 : i32 to index
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %cmd = hal.command_buffer.create device(%device : !hal.device) mode("OneShot|AllowInlineExecution") categories(Dispatch) affinity(%queue_affinity) : !hal.command_buffer
    %c3612672_i32 = arith.constant 3612672 : i32
    %c5106368_i32 = arith.constant 5106368 : i32
    %c47616_i32 = arith.constant 47616 : i32
    %c48128_i32 = arith.constant 48128 : i32
    %c48640_i32 = arith.constant 48640 : i32
    %main$async_dispatch_18_cuda_nvptx_fb_main$async_dispatch_18_conv_128x28x28x128x3x3_f32_buffer = util.global.load @main$async_dispatch_18_cuda_nvptx_fb_main$async_dispatch_18_conv_128x28x28x128x3x3_f32_buffer : !hal.buffer
    %c0 = arith.constant 0 : index
    %c8947712 = arith.constant 8947712 : index
    %c102329024 = arith.constant 102329024 : index
    %c111276800 = arith.constant 111276800 : index
    %c16128 = arith.constant 16128 : index
    %c111292928 = arith.constant 111292928 : index
    %workgroup_x, %workgroup_y, %workgroup_z = hal.executable.calculate_workgroups device(%device : !hal.device) target(@main$async_dispatch_18::@cuda_nvptx_fb::@main$async_dispatch_18_conv_128x28x28x128x3x3_f32) : index, index, index
    %exe = hal.executable.lookup device(%device : !hal.device) executable(@main$async_dispatch_18) : !hal.executable
    %function_id = hal.executable.lookup.function target(%exe : !hal.executable) function(@main$async_dispatch_18::@cuda_nvptx_fb::@main$async_dispatch_18_conv_128x28x28x128x3x3_f32) : i64
    %c1 = arith.constant 1 : index
    scf.for %arg1 = %c0 to %0 step %c1 {
      hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%function_id] workgroups([%workgroup_x, %workgroup_y, %workgroup_z]) constants([%c3612672_i32, %c5106368_i32, %c47616_i32, %c48128_i32, %c48640_i32]) bindings([
        (%main$async_dispatch_18_cuda_nvptx_fb_main$async_dispatch_18_conv_128x28x28x128x3x3_f32_buffer : !hal.buffer)[%c0, %c8947712], 
        (%main$async_dispatch_18_cuda_nvptx_fb_main$async_dispatch_18_conv_128x28x28x128x3x3_f32_buffer : !hal.buffer)[%c8947712, %c102329024], 
        (%main$async_dispatch_18_cuda_nvptx_fb_main$async_dispatch_18_conv_128x28x28x128x3x3_f32_buffer : !hal.buffer)[%c111276800, %c16128], 
        (%main$async_dispatch_18_cuda_nvptx_fb_main$async_dispatch_18_conv_128x28x28x128x3x3_f32_buffer : !hal.buffer)[%c111292928, %c8947712]
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
