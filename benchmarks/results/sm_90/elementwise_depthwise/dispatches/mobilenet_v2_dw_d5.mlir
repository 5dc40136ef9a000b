module {
  util.global private @__device_0 = #hal.device.target<"cuda", [#hal.executable.target<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>]> : !hal.device
  hal.executable private @main$async_dispatch_5 {
    hal.executable.variant public @cuda_nvptx_fb target(<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>) {
      hal.executable.export public @main$async_dispatch_5_conv_56x56x96x3x3_f32 ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) count(%arg0: !hal.device) -> (index, index, index) {
        %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
        hal.return %x, %y, %z : index, index, index
      }
      builtin.module {
        func.func @main$async_dispatch_5_conv_56x56x96x3x3_f32() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [32, 1, 1] subgroup_size = 32>} {
          %cst = arith.constant 0.000000e+00 : f32
          %cst_0 = arith.constant 6.000000e+00 : f32
          %c3876672 = arith.constant 3876672 : index
          %c7808 = arith.constant 7808 : index
          %c11264 = arith.constant 11264 : index
          %c11648 = arith.constant 11648 : index
          %c12032 = arith.constant 12032 : index
          %c16640 = arith.constant 16640 : index
          %c0 = arith.constant 0 : index
          %0 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(0) alignment(64) offset(%c3876672) flags("ReadOnly|Indirect") : memref<96x113x113xf32, strided<[12769, 113, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %1 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%c7808) flags(ReadOnly) : memref<96x3x3xf32, strided<[9, 3, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %2 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%c11264) flags(ReadOnly) : memref<96xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %3 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(2) alignment(64) offset(%c16640) flags(ReadOnly) : memref<96xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %4 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%c11648) flags(ReadOnly) : memref<96xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %5 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%c12032) flags(ReadOnly) : memref<96xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %6 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(3) alignment(64) offset(%c0) flags(Indirect) : memref<96x56x56xf32, #hal.descriptor_type<storage_buffer>>
          %7 = iree_codegen.load_from_buffer %0 : memref<96x113x113xf32, strided<[12769, 113, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<96x113x113xf32>
          %8 = iree_codegen.load_from_buffer %1 : memref<96x3x3xf32, strided<[9, 3, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<96x3x3xf32>
          %9 = iree_codegen.load_from_buffer %2 : memref<96xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<96xf32>
          %10 = iree_codegen.load_from_buffer %3 : memref<96xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<96xf32>
          %11 = iree_codegen.load_from_buffer %4 : memref<96xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<96xf32>
          %12 = iree_codegen.load_from_buffer %5 : memref<96xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<96xf32>
          %13 = tensor.empty() : tensor<96x56x56xf32>
          %14 = linalg.fill ins(%cst : f32) outs(%13 : tensor<96x56x56xf32>) -> tensor<96x56x56xf32>
          %15 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d2, d0 * 2 + d3, d1 * 2 + d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d2, d0, d1)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%7, %8 : tensor<96x113x113xf32>, tensor<96x3x3xf32>) outs(%14 : tensor<96x56x56xf32>) attrs =  {lowering_config = #iree_gpu.lowering_config<{reduction = [0, 0, 0, 3, 3], thread = [1, 1, 1, 0, 0], workgroup = [1, 1, 32, 0, 0]}>, root_op = #iree_codegen.root_op<set = 0>} {
          ^bb0(%in: f32, %in_1: f32, %out: f32):
            %17 = arith.mulf %in, %in_1 : f32
            %18 = arith.addf %out, %17 : f32
            linalg.yield %18 : f32
          } -> tensor<96x56x56xf32>
          %16 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%15, %9, %10, %11, %12 : tensor<96x56x56xf32>, tensor<96xf32>, tensor<96xf32>, tensor<96xf32>, tensor<96xf32>) outs(%13 : tensor<96x56x56xf32>) {
          ^bb0(%in: f32, %in_1: f32, %in_2: f32, %in_3: f32, %in_4: f32, %out: f32):
            %17 = arith.subf %in, %in_1 : f32
            %18 = arith.mulf %17, %in_2 : f32
            %19 = arith.mulf %18, %in_3 : f32
            %20 = arith.addf %19, %in_4 : f32
            %21 = arith.cmpf ogt, %20, %cst : f32
            %22 = arith.select %21, %20, %cst : f32
            %23 = arith.cmpf olt, %cst_0, %22 : f32
            %24 = arith.select %23, %cst_0, %22 : f32
            linalg.yield %24 : f32
          } -> tensor<96x56x56xf32>
          iree_codegen.store_to_buffer %16, %6 : tensor<96x56x56xf32> into memref<96x56x56xf32, #hal.descriptor_type<storage_buffer>>
          return
        }
        iree_codegen.dispatch_config @main$async_dispatch_5_conv_56x56x96x3x3_f32 {
        ^bb0(%arg0: !hal.device):
          %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
          iree_codegen.yield %x, %y, %z : index, index, index
        }
      }
    }
  }
  util.global private mutable @main$async_dispatch_5_cuda_nvptx_fb_main$async_dispatch_5_conv_56x56x96x3x3_f32_buffer : !hal.buffer
  util.initializer {
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %allocator = hal.device.allocator<%device : !hal.device> : !hal.allocator
    %memory_type = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
    %buffer_usage = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage"> : i32
    %c31659264 = arith.constant 31659264 : index
    %buffer = hal.allocator.allocate<%allocator : !hal.allocator> affinity(%queue_affinity) type(%memory_type) usage(%buffer_usage) : !hal.buffer{%c31659264}
    util.global.store %buffer, @main$async_dispatch_5_cuda_nvptx_fb_main$async_dispatch_5_conv_56x56x96x3x3_f32_buffer : !hal.buffer
    util.return
  }
  util.func public @main$async_dispatch_5_cuda_nvptx_fb_main$async_dispatch_5_conv_56x56x96x3x3_f32(%arg0: i32) attributes {iree.abi.stub, iree.reflection = {iree.benchmark = "dispatch"}} {
    %0 = arith.index_cast %arg0 : i32 to index
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %cmd = hal.command_buffer.create device(%device : !hal.device) mode("OneShot|AllowInlineExecution") categories(Dispatch) affinity(%queue_affinity) : !hal.command_buffer
    %main$async_dispatch_5_cuda_nvptx_fb_main$async_dispatch_5_conv_56x56x96x3x3_f32_buffer = util.global.load @main$async_dispatch_5_cuda_nvptx_fb_main$async_dispatch_5_conv_56x56x96x3x3_f32_buffer : !hal.buffer
    %c0 = arith.constant 0 : index
    %c8779968 = arith.constant 8779968 : index
    %c8780032 = arith.constant 8780032 : index
    %c14081984 = arith.constant 14081984 : index
    %c22862080 = arith.constant 22862080 : index
    %c17024 = arith.constant 17024 : index
    %c22879232 = arith.constant 22879232 : index
    %workgroup_x, %workgroup_y, %workgroup_z = hal.executable.calculate_workgroups device(%device : !hal.device) target(@main$async_dispatch_5::@cuda_nvptx_fb::@main$async_dispatch_5_conv_56x56x96x3x3_f32) : index, index, index
    %exe = hal.executable.lookup device(%device : !hal.device) executable(@main$async_dispatch_5) : !hal.executable
    %function_id = hal.executable.lookup.function target(%exe : !hal.executable) function(@main$async_dispatch_5::@cuda_nvptx_fb::@main$async_dispatch_5_conv_56x56x96x3x3_f32) : i64
    %c1 = arith.constant 1 : index
    scf.for %arg1 = %c0 to %0 step %c1 {
      hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%function_id] workgroups([%workgroup_x, %workgroup_y, %workgroup_z]) bindings([
        (%main$async_dispatch_5_cuda_nvptx_fb_main$async_dispatch_5_conv_56x56x96x3x3_f32_buffer : !hal.buffer)[%c0, %c8779968], 
        (%main$async_dispatch_5_cuda_nvptx_fb_main$async_dispatch_5_conv_56x56x96x3x3_f32_buffer : !hal.buffer)[%c8780032, %c14081984], 
        (%main$async_dispatch_5_cuda_nvptx_fb_main$async_dispatch_5_conv_56x56x96x3x3_f32_buffer : !hal.buffer)[%c22862080, %c17024], 
        (%main$async_dispatch_5_cuda_nvptx_fb_main$async_dispatch_5_conv_56x56x96x3x3_f32_buffer : !hal.buffer)[%c22879232, %c8779968]
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
