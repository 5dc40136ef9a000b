module {
  util.global private @__device_0 = #hal.device.target<"cuda", [#hal.executable.target<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>]> : !hal.device
  hal.executable private @main$async_dispatch_31 {
    hal.executable.variant public @cuda_nvptx_fb target(<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>) {
      hal.executable.export public @main$async_dispatch_31_conv_256x14x14x256x3x3_f32 ordinal(0) layout(#hal.pipeline.layout<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) count(%arg0: !hal.device) -> (index, index, index) {
        %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
        hal.return %x, %y, %z : index, index, index
      }
      builtin.module {
        func.func @main$async_dispatch_31_conv_256x14x14x256x3x3_f32() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [32, 1, 1] subgroup_size = 32>} {
          %cst = arith.constant 0.000000e+00 : f32
          %c1806336 = arith.constant 1806336 : index
          %c12800 = arith.constant 12800 : index
          %c0 = arith.constant 0 : index
          %0 = hal.interface.constant.load layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(0) : i32
          %1 = hal.interface.constant.load layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(1) : i32
          %2 = hal.interface.constant.load layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(2) : i32
          %3 = hal.interface.constant.load layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(3) : i32
          %4 = arith.index_castui %0 : i32 to index
          %5 = arith.index_castui %1 : i32 to index
          %6 = arith.index_castui %2 : i32 to index
          %7 = arith.index_castui %3 : i32 to index
          %8:4 = util.assume.int 
              %4[<umin = 13036224, umax = 13036224, udiv = 13036224>, <umin = 17492672, umax = 17492672, udiv = 17492672>, <umin = 21949120, umax = 21949120, udiv = 21949120>, <umin = 26405568, umax = 26405568, udiv = 26405568>, <umin = 30862016, umax = 30862016, udiv = 30862016>], 
              %5[<umin = 89088, umax = 89088, udiv = 89088>, <umin = 107520, umax = 107520, udiv = 107520>, <umin = 125952, umax = 125952, udiv = 125952>, <umin = 144384, umax = 144384, udiv = 144384>, <umin = 162816, umax = 162816, udiv = 162816>], 
              %6[<umin = 90112, umax = 90112, udiv = 90112>, <umin = 108544, umax = 108544, udiv = 108544>, <umin = 126976, umax = 126976, udiv = 126976>, <umin = 145408, umax = 145408, udiv = 145408>, <umin = 163840, umax = 163840, udiv = 163840>], 
              %7[<umin = 91136, umax = 91136, udiv = 91136>, <umin = 109568, umax = 109568, udiv = 109568>, <umin = 128000, umax = 128000, udiv = 128000>, <umin = 146432, umax = 146432, udiv = 146432>, <umin = 164864, umax = 164864, udiv = 164864>]
            : index, index, index, index
          %9 = hal.interface.binding.subspan layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(0) alignment(64) offset(%c1806336) flags("ReadOnly|Indirect") : memref<256x16x16xf32, strided<[256, 16, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %10 = hal.interface.binding.subspan layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%8#0) flags(ReadOnly) : memref<256x256x3x3xf32, strided<[2304, 9, 3, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %11 = hal.interface.binding.subspan layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%8#1) flags(ReadOnly) : memref<256xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %12 = hal.interface.binding.subspan layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(2) alignment(64) offset(%c12800) flags(ReadOnly) : memref<256xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %13 = hal.interface.binding.subspan layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%8#2) flags(ReadOnly) : memref<256xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %14 = hal.interface.binding.subspan layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%8#3) flags(ReadOnly) : memref<256xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %15 = hal.interface.binding.subspan layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(3) alignment(64) offset(%c0) flags(Indirect) : memref<256x14x14xf32, #hal.descriptor_type<storage_buffer>>
          %16 = iree_codegen.load_from_buffer %9 : memref<256x16x16xf32, strided<[256, 16, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<256x16x16xf32>
          %17 = iree_codegen.load_from_buffer %10 : memref<256x256x3x3xf32, strided<[2304, 9, 3, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<256x256x3x3xf32>
          %18 = iree_codegen.load_from_buffer %11 : memref<256xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<256xf32>
          %19 = iree_codegen.load_from_buffer %12 : memref<256xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<256xf32>
          %20 = iree_codegen.load_from_buffer %13 : memref<256xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<256xf32>
          %21 = iree_codegen.load_from_buffer %14 : memref<256xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<256xf32>
          %22 = tensor.empty() : tensor<256x14x14xf32>
          %23 = linalg.fill ins(%cst : f32) outs(%22 : tensor<256x14x14xf32>) -> tensor<256x14x14xf32>
          %24 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d1 + d4, d2 + d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%16, %17 : tensor<256x16x16xf32>, tensor<256x256x3x3xf32>) outs(%23 : tensor<256x14x14xf32>) attrs =  {lowering_config = #iree_gpu.lowering_config<{reduction = [0, 0, 0, 1, 3, 3], thread = [1, 1, 1, 0, 0, 0], workgroup = [8, 2, 2, 0, 0, 0]}>, root_op = #iree_codegen.root_op<set = 0>} {
          ^bb0(%in: f32, %in_0: f32, %out: f32):
            %26 = arith.mulf %in, %in_0 : f32
            %27 = arith.addf %out, %26 : f32
            linalg.yield %27 : f32
          } -> tensor<256x14x14xf32>
          %25 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%24, %18, %19, %20, %21 : tensor<256x14x14xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>) outs(%22 : tensor<256x14x14xf32>) {
          ^bb0(%in: f32, %in_0: f32, %in_1: f32, %in_2: f32, %in_3: f32, %out: f32):
            %26 = arith.subf %in, %in_0 : f32
            %27 = arith.mulf %26, %in_1 : f32
            %28 = arith.mulf %27, %in_2 : f32
            %29 = arith.addf %28, %in_3 : f32
            %30 = arith.cmpf ugt, %29, %cst : f32
            %31 = arith.select %30, %29, %cst : f32
            linalg.yield %31 : f32
          } -> tensor<256x14x14xf32>
          iree_codegen.store_to_buffer %25, %15 : tensor<256x14x14xf32> into memref<256x14x14xf32, #hal.descriptor_type<storage_buffer>>
          return
        }
        iree_codegen.dispatch_config @main$async_dispatch_31_conv_256x14x14x256x3x3_f32 {
        ^bb0(%arg0: !hal.device):
          %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
          iree_codegen.yield %x, %y, %z : index, index, index
        }
      }
    }
  }
  util.global private mutable @main$async_dispatch_31_cuda_nvptx_fb_main$async_dispatch_31_conv_256x14x14x256x3x3_f32_buffer : !hal.buffer
  util.initializer {
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %allocator = hal.device.allocator<%device : !hal.device> : !hal.allocator
    %memory_type = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
    %buffer_usage = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage"> : i32
    %c120240640 = arith.constant 120240640 : index
    %buffer = hal.allocator.allocate<%allocator : !hal.allocator> affinity(%queue_affinity) type(%memory_type) usage(%buffer_usage) : !hal.buffer{%c120240640}
    util.global.store %buffer, @main$async_dispatch_31_cuda_nvptx_fb_main$async_dispatch_31_conv_256x14x14x256x3x3_f32_buffer : !hal.buffer
    util.return
  }
  util.func public @main$async_dispatch_31_cuda_nvptx_fb_main$async_dispatch_31_conv_256x14x14x256x3x3_f32(%arg0: i32) attributes {iree.abi.stub, iree.reflection = {iree.benchmark = "dispatch"}} {
    %0 = arith.index_cast %arg0 : i32 to index
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %cmd = hal.command_buffer.create device(%device : !hal.device) mode("OneShot|AllowInlineExecution") categories(Dispatch) affinity(%queue_affinity) : !hal.command_buffer
    %c30862016_i32 = arith.constant 30862016 : i32
    %c162816_i32 = arith.constant 162816 : i32
    %c163840_i32 = arith.constant 163840 : i32
    %c164864_i32 = arith.constant 164864 : i32
    %main$async_dispatch_31_cuda_nvptx_fb_main$async_dispatch_31_conv_256x14x14x256x3x3_f32_buffer = util.global.load @main$async_dispatch_31_cuda_nvptx_fb_main$async_dispatch_31_conv_256x14x14x256x3x3_f32_buffer : !hal.buffer
    %c0 = arith.constant 0 : index
    %c8947712 = arith.constant 8947712 : index
    %c102329024 = arith.constant 102329024 : index
    %c111276800 = arith.constant 111276800 : index
    %c16128 = arith.constant 16128 : index
    %c111292928 = arith.constant 111292928 : index
    %workgroup_x, %workgroup_y, %workgroup_z = hal.executable.calculate_workgroups device(%device : !hal.device) target(@main$async_dispatch_31::@cuda_nvptx_fb::@main$async_dispatch_31_conv_256x14x14x256x3x3_f32) : index, index, index
    %exe = hal.executable.lookup device(%device : !hal.device) executable(@main$async_dispatch_31) : !hal.executable
    %function_id = hal.executable.lookup.function target(%exe : !hal.executable) function(@main$async_dispatch_31::@cuda_nvptx_fb::@main$async_dispatch_31_conv_256x14x14x256x3x3_f32) : i64
    %c1 = arith.constant 1 : index
    scf.for %arg1 = %c0 to %0 step %c1 {
      hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%function_id] workgroups([%workgroup_x, %workgroup_y, %workgroup_z]) constants([%c30862016_i32, %c162816_i32, %c163840_i32, %c164864_i32]) bindings([
        (%main$async_dispatch_31_cuda_nvptx_fb_main$async_dispatch_31_conv_256x14x14x256x3x3_f32_buffer : !hal.buffer)[%c0, %c8947712], 
        (%main$async_dispatch_31_cuda_nvptx_fb_main$async_dispatch_31_conv_256x14x14x256x3x3_f32_buffer : !hal.buffer)[%c8947712, %c102329024], 
        (%main$async_dispatch_31_cuda_nvptx_fb_main$async_dispatch_31_conv_256x14x14x256x3x3_f32_buffer : !hal.buffer)[%c111276800, %c16128], 
        (%main$async_dispatch_31_cuda_nvptx_fb_main$async_dispatch_31_conv_256x14x14x256x3x3_f32_buffer : !hal.buffer)[%c111292928, %c8947712]
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
