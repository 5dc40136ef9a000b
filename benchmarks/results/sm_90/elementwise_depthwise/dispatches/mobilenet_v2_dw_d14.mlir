module {
  util.global private @__device_0 = #hal.device.target<"cuda", [#hal.executable.target<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>]> : !hal.device
  hal.executable private @main$async_dispatch_14 {
    hal.executable.variant public @cuda_nvptx_fb target(<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>) {
      hal.executable.export public @main$async_dispatch_14_conv_28x28x192x3x3_f32 ordinal(0) layout(#hal.pipeline.layout<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) count(%arg0: !hal.device) -> (index, index, index) {
        %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
        hal.return %x, %y, %z : index, index, index
      }
      builtin.module {
        func.func @main$async_dispatch_14_conv_28x28x192x3x3_f32() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [32, 1, 1] subgroup_size = 32>} {
          %cst = arith.constant 6.000000e+00 : f32
          %cst_0 = arith.constant 0.000000e+00 : f32
          %c551936 = arith.constant 551936 : index
          %c6400 = arith.constant 6400 : index
          %c1243136 = arith.constant 1243136 : index
          %0 = hal.interface.constant.load layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(0) : i32
          %1 = hal.interface.constant.load layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(1) : i32
          %2 = hal.interface.constant.load layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(2) : i32
          %3 = hal.interface.constant.load layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(3) : i32
          %4 = arith.index_castui %0 : i32 to index
          %5 = arith.index_castui %1 : i32 to index
          %6 = arith.index_castui %2 : i32 to index
          %7 = arith.index_castui %3 : i32 to index
          %8:4 = util.assume.int 
              %4[<umin = 307904, umax = 307904, udiv = 307904>, <umin = 363968, umax = 363968, udiv = 363968>], 
              %5[<umin = 21632, umax = 21632, udiv = 21632>, <umin = 26240, umax = 26240, udiv = 26240>], 
              %6[<umin = 22400, umax = 22400, udiv = 22400>, <umin = 27008, umax = 27008, udiv = 27008>], 
              %7[<umin = 23168, umax = 23168, udiv = 23168>, <umin = 27776, umax = 27776, udiv = 27776>]
            : index, index, index, index
          %9 = hal.interface.binding.subspan layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(0) alignment(64) offset(%c551936) flags("ReadOnly|Indirect") : memref<192x30x30xf32, strided<[900, 30, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %10 = hal.interface.binding.subspan layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%8#0) flags(ReadOnly) : memref<192x3x3xf32, strided<[9, 3, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %11 = hal.interface.binding.subspan layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%8#1) flags(ReadOnly) : memref<192xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %12 = hal.interface.binding.subspan layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(2) alignment(64) offset(%c6400) flags(ReadOnly) : memref<192xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %13 = hal.interface.binding.subspan layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%8#2) flags(ReadOnly) : memref<192xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %14 = hal.interface.binding.subspan layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%8#3) flags(ReadOnly) : memref<192xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %15 = hal.interface.binding.subspan layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(3) alignment(64) offset(%c1243136) flags(Indirect) : memref<192x28x28xf32, strided<[784, 28, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %16 = iree_codegen.load_from_buffer %9 : memref<192x30x30xf32, strided<[900, 30, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<192x30x30xf32>
          %17 = iree_codegen.load_from_buffer %10 : memref<192x3x3xf32, strided<[9, 3, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<192x3x3xf32>
          %18 = iree_codegen.load_from_buffer %11 : memref<192xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<192xf32>
          %19 = iree_codegen.load_from_buffer %12 : memref<192xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<192xf32>
          %20 = iree_codegen.load_from_buffer %13 : memref<192xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<192xf32>
          %21 = iree_codegen.load_from_buffer %14 : memref<192xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<192xf32>
          %22 = tensor.empty() : tensor<192x28x28xf32>
          %23 = linalg.fill ins(%cst_0 : f32) outs(%22 : tensor<192x28x28xf32>) -> tensor<192x28x28xf32>
          %24 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d2, d0 + d3, d1 + d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d2, d0, d1)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%16, %17 : tensor<192x30x30xf32>, tensor<192x3x3xf32>) outs(%23 : tensor<192x28x28xf32>) attrs =  {lowering_config = #iree_gpu.lowering_config<{reduction = [0, 0, 0, 3, 3], thread = [1, 1, 1, 0, 0], workgroup = [1, 1, 32, 0, 0]}>, root_op = #iree_codegen.root_op<set = 0>} {
          ^bb0(%in: f32, %in_1: f32, %out: f32):
            %26 = arith.mulf %in, %in_1 : f32
            %27 = arith.addf %out, %26 : f32
            linalg.yield %27 : f32
          } -> tensor<192x28x28xf32>
          %25 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%24, %18, %19, %20, %21 : tensor<192x28x28xf32>, tensor<192xf32>, tensor<192xf32>, tensor<192xf32>, tensor<192xf32>) outs(%22 : tensor<192x28x28xf32>) {
          ^bb0(%in: f32, %in_1: f32, %in_2: f32, %in_3: f32, %in_4: f32, %out: f32):
            %26 = arith.subf %in, %in_1 : f32
            %27 = arith.mulf %26, %in_2 : f32
            %28 = arith.mulf %27, %in_3 : f32
            %29 = arith.addf %28, %in_4 : f32
            %30 = arith.cmpf ogt, %29, %cst_0 : f32
            %31 = arith.select %30, %29, %cst_0 : f32
            %32 = arith.cmpf olt, %cst, %31 : f32
            %33 = arith.select %32, %cst, %31 : f32
            linalg.yield %33 : f32
          } -> tensor<192x28x28xf32>
          iree_codegen.store_to_buffer %25, %15 : tensor<192x28x28xf32> into memref<192x28x28xf32, strided<[784, 28, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          return
        }
        iree_codegen.dispatch_config @main$async_dispatch_14_conv_28x28x192x3x3_f32 {
        ^bb0(%arg0: !hal.device):
          %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
          iree_codegen.yield %x, %y, %z : index, index, index
        }
      }
    }
  }
  util.global private mutable @main$async_dispatch_14_cuda_nvptx_fb_main$async_dispatch_14_conv_28x28x192x3x3_f32_buffer : !hal.buffer
  util.initializer {
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %allocator = hal.device.allocator<%device : !hal.device> : !hal.allocator
    %memory_type = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
    %buffer_usage = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage"> : i32
    %c31659264 = arith.constant 31659264 : index
    %buffer = hal.allocator.allocate<%allocator : !hal.allocator> affinity(%queue_affinity) type(%memory_type) usage(%buffer_usage) : !hal.buffer{%c31659264}
    util.global.store %buffer, @main$async_dispatch_14_cuda_nvptx_fb_main$async_dispatch_14_conv_28x28x192x3x3_f32_buffer : !hal.buffer
    util.return
  }
  util.func public @main$async_dispatch_14_cuda_nvptx_fb_main$async_dispatch_14_conv_28x28x192x3x3_f32(%arg0: i32) attributes {iree.abi.stub, iree.reflection = {iree.benchmark = "dispatch"}} {
    %0 = arith.index_cast %arg0 : i32 to index
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %cmd = hal.command_buffer.create device(%device : !hal.device) mode("OneShot|AllowInlineExecution") categories(Dispatch) affinity(%queue_affinity) : !hal.command_buffer
    %c363968_i32 = arith.constant 363968 : i32
    %c26240_i32 = arith.constant 26240 : i32
    %c27008_i32 = arith.constant 27008 : i32
    %c27776_i32 = arith.constant 27776 : i32
    %main$async_dispatch_14_cuda_nvptx_fb_main$async_dispatch_14_conv_28x28x192x3x3_f32_buffer = util.global.load @main$async_dispatch_14_cuda_nvptx_fb_main$async_dispatch_14_conv_28x28x192x3x3_f32_buffer : !hal.buffer
    %c0 = arith.constant 0 : index
    %c8779968 = arith.constant 8779968 : index
    %c8780032 = arith.constant 8780032 : index
    %c14081984 = arith.constant 14081984 : index
    %c22862080 = arith.constant 22862080 : index
    %c17024 = arith.constant 17024 : index
    %c22879232 = arith.constant 22879232 : index
    %workgroup_x, %workgroup_y, %workgroup_z = hal.executable.calculate_workgroups device(%device : !hal.device) target(@main$async_dispatch_14::@cuda_nvptx_fb::@main$async_dispatch_14_conv_28x28x192x3x3_f32) : index, index, index
    %exe = hal.executable.lookup device(%device : !hal.device) executable(@main$async_dispatch_14) : !hal.executable
    %function_id = hal.executable.lookup.function target(%exe : !hal.executable) function(@main$async_dispatch_14::@cuda_nvptx_fb::@main$async_dispatch_14_conv_28x28x192x3x3_f32) : i64
    %c1 = arith.constant 1 : index
    scf.for %arg1 = %c0 to %0 step %c1 {
      hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%function_id] workgroups([%workgroup_x, %workgroup_y, %workgroup_z]) constants([%c363968_i32, %c26240_i32, %c27008_i32, %c27776_i32]) bindings([
        (%main$async_dispatch_14_cuda_nvptx_fb_main$async_dispatch_14_conv_28x28x192x3x3_f32_buffer : !hal.buffer)[%c0, %c8779968], 
        (%main$async_dispatch_14_cuda_nvptx_fb_main$async_dispatch_14_conv_28x28x192x3x3_f32_buffer : !hal.buffer)[%c8780032, %c14081984], 
        (%main$async_dispatch_14_cuda_nvptx_fb_main$async_dispatch_14_conv_28x28x192x3x3_f32_buffer : !hal.buffer)[%c22862080, %c17024], 
        (%main$async_dispatch_14_cuda_nvptx_fb_main$async_dispatch_14_conv_28x28x192x3x3_f32_buffer : !hal.buffer)[%c22879232, %c8779968]
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
