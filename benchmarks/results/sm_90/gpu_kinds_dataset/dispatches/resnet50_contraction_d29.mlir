module {
  util.global private @__device_0 = #hal.device.target<"cuda", [#hal.executable.target<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>]> : !hal.device
  hal.executable private @main$async_dispatch_29 {
    hal.executable.variant public @cuda_nvptx_fb target(<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>) {
      hal.executable.export public @main$async_dispatch_29_matmul_like_1024x196x256_f32 ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) count(%arg0: !hal.device) -> (index, index, index) {
        %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
        hal.return %x, %y, %z : index, index, index
      }
      builtin.module {
        func.func @main$async_dispatch_29_matmul_like_1024x196x256_f32() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [32, 8, 1] subgroup_size = 32, {gpu_pipeline_options = #iree_gpu.pipeline_options<no_reduce_shared_memory_bank_conflicts = true, use_igemm_convolution = false>}>} {
          %cst = arith.constant 0.000000e+00 : f32
          %c0 = arith.constant 0 : index
          %c200704 = arith.constant 200704 : index
          %c8841920 = arith.constant 8841920 : index
          %c61440 = arith.constant 61440 : index
          %c65536 = arith.constant 65536 : index
          %c69632 = arith.constant 69632 : index
          %c73728 = arith.constant 73728 : index
          %c77824 = arith.constant 77824 : index
          %c81920 = arith.constant 81920 : index
          %c1003520 = arith.constant 1003520 : index
          %0 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(0) alignment(64) offset(%c0) flags("ReadOnly|Indirect") : memref<256x196xf32, #hal.descriptor_type<storage_buffer>>
          %1 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%c8841920) flags(ReadOnly) : memref<1024x256xf32, strided<[256, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %2 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%c61440) flags(ReadOnly) : memref<1024xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %3 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(2) alignment(64) offset(%c0) flags(ReadOnly) : memref<1024xf32, #hal.descriptor_type<storage_buffer>>
          %4 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%c65536) flags(ReadOnly) : memref<1024xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %5 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%c69632) flags(ReadOnly) : memref<1024xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %6 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(0) alignment(64) offset(%c200704) flags("ReadOnly|Indirect") : memref<1024x196xf32, strided<[196, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %7 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%c73728) flags(ReadOnly) : memref<1024xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %8 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%c77824) flags(ReadOnly) : memref<1024xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %9 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%c81920) flags(ReadOnly) : memref<1024xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %10 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(3) alignment(64) offset(%c1003520) flags(Indirect) : memref<1024x196xf32, strided<[196, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %11 = iree_codegen.load_from_buffer %0 : memref<256x196xf32, #hal.descriptor_type<storage_buffer>> -> tensor<256x196xf32>
          %12 = iree_codegen.load_from_buffer %1 : memref<1024x256xf32, strided<[256, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<1024x256xf32>
          %13 = iree_codegen.load_from_buffer %2 : memref<1024xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<1024xf32>
          %14 = iree_codegen.load_from_buffer %3 : memref<1024xf32, #hal.descriptor_type<storage_buffer>> -> tensor<1024xf32>
          %15 = iree_codegen.load_from_buffer %4 : memref<1024xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<1024xf32>
          %16 = iree_codegen.load_from_buffer %5 : memref<1024xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<1024xf32>
          %17 = iree_codegen.load_from_buffer %6 : memref<1024x196xf32, strided<[196, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<1024x196xf32>
          %18 = iree_codegen.load_from_buffer %7 : memref<1024xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<1024xf32>
          %19 = iree_codegen.load_from_buffer %8 : memref<1024xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<1024xf32>
          %20 = iree_codegen.load_from_buffer %9 : memref<1024xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<1024xf32>
          %21 = tensor.empty() : tensor<1024x196xf32>
          %22 = linalg.fill ins(%cst : f32) outs(%21 : tensor<1024x196xf32>) -> tensor<1024x196xf32>
          %23 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%11, %12 : tensor<256x196xf32>, tensor<1024x256xf32>) outs(%22 : tensor<1024x196xf32>) attrs =  {lowering_config = #iree_gpu.lowering_config<{reduction = [0, 0, 32], thread = [1, 16, 0], workgroup = [32, 128, 1]}>, root_op = #iree_codegen.root_op<set = 0>} {
          ^bb0(%in: f32, %in_0: f32, %out: f32):
            %25 = arith.mulf %in, %in_0 : f32
            %26 = arith.addf %out, %25 : f32
            linalg.yield %26 : f32
          } -> tensor<1024x196xf32>
          %24 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%23, %13, %14, %15, %16, %17, %18, %19, %20 : tensor<1024x196xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024x196xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>) outs(%21 : tensor<1024x196xf32>) {
          ^bb0(%in: f32, %in_0: f32, %in_1: f32, %in_2: f32, %in_3: f32, %in_4: f32, %in_5: f32, %in_6: f32, %in_7: f32, %out: f32):
            %25 = arith.subf %in, %in_0 : f32
            %26 = arith.mulf %25, %in_1 : f32
            %27 = arith.mulf %26, %in_2 : f32
            %28 = arith.subf %in_4, %in_5 : f32
            %29 = arith.mulf %28, %in_1 : f32
            %30 = arith.mulf %29, %in_6 : f32
            %31 = arith.addf %30, %in_7 : f32
            %32 = arith.addf %27, %in_3 : f32
            %33 = arith.addf %32, %31 : f32
            %34 = arith.cmpf ugt, %33, %cst : f32
            %35 = arith.select %34, %33, %cst : f32
            linalg.yield %35 : f32
          } -> tensor<1024x196xf32>
          iree_codegen.store_to_buffer %24, %10 : tensor<1024x196xf32> into memref<1024x196xf32, strided<[196, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          return
        }
        iree_codegen.dispatch_config @main$async_dispatch_29_matmul_like_1024x196x256_f32 {
        ^bb0(%arg0: !hal.device):
          %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
          iree_codegen.yield %x, %y, %z : index, index, index
        }
      }
    }
  }
  util.global private mutable @main$async_dispatch_29_cuda_nvptx_fb_main$async_dispatch_29_matmul_like_1024x196x256_f32_buffer : !hal.buffer
  util.initializer {
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %allocator = hal.device.allocator<%device : !hal.device> : !hal.allocator
    %memory_type = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
    %buffer_usage = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage"> : i32
    %c120240640 = arith.constant 120240640 : index
    %buffer = hal.allocator.allocate<%allocator : !hal.allocator> affinity(%queue_affinity) type(%memory_type) usage(%buffer_usage) : !hal.buffer{%c120240640}
    util.global.store %buffer, @main$async_dispatch_29_cuda_nvptx_fb_main$async_dispatch_29_matmul_like_1024x196x256_f32_buffer : !hal.buffer
    util.return
  }
  util.func public @main$async_dispatch_29_cuda_nvptx_fb_main$async_dispatch_29_matmul_like_1024x196x256_f32(%arg0: i32) attributes {iree.abi.stub, iree.reflection = {iree.benchmark = "dispatch"}} {
    %0 = arith.index_cast %arg0 : i32 to index
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %cmd = hal.command_buffer.create device(%device : !hal.device) mode("OneShot|AllowInlineExecution") categories(Dispatch) affinity(%queue_affinity) : !hal.command_buffer
    %main$async_dispatch_29_cuda_nvptx_fb_main$async_dispatch_29_matmul_like_1024x196x256_f32_buffer = util.global.load @main$async_dispatch_29_cuda_nvptx_fb_main$async_dispatch_29_matmul_like_1024x196x256_f32_buffer : !hal.buffer
    %c0 = arith.constant 0 : index
    %c8947712 = arith.constant 8947712 : index
    %c102329024 = arith.constant 102329024 : index
    %c111276800 = arith.constant 111276800 : index
    %c16128 = arith.constant 16128 : index
    %c111292928 = arith.constant 111292928 : index
    %workgroup_x, %workgroup_y, %workgroup_z = hal.executable.calculate_workgroups device(%device : !hal.device) target(@main$async_dispatch_29::@cuda_nvptx_fb::@main$async_dispatch_29_matmul_like_1024x196x256_f32) : index, index, index
    %exe = hal.executable.lookup device(%device : !hal.device) executable(@main$async_dispatch_29) : !hal.executable
    %function_id = hal.executable.lookup.function target(%exe : !hal.executable) function(@main$async_dispatch_29::@cuda_nvptx_fb::@main$async_dispatch_29_matmul_like_1024x196x256_f32) : i64
    %c1 = arith.constant 1 : index
    scf.for %arg1 = %c0 to %0 step %c1 {
      hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%function_id] workgroups([%workgroup_x, %workgroup_y, %workgroup_z]) bindings([
        (%main$async_dispatch_29_cuda_nvptx_fb_main$async_dispatch_29_matmul_like_1024x196x256_f32_buffer : !hal.buffer)[%c0, %c8947712], 
        (%main$async_dispatch_29_cuda_nvptx_fb_main$async_dispatch_29_matmul_like_1024x196x256_f32_buffer : !hal.buffer)[%c8947712, %c102329024], 
        (%main$async_dispatch_29_cuda_nvptx_fb_main$async_dispatch_29_matmul_like_1024x196x256_f32_buffer : !hal.buffer)[%c111276800, %c16128], 
        (%main$async_dispatch_29_cuda_nvptx_fb_main$async_dispatch_29_matmul_like_1024x196x256_f32_buffer : !hal.buffer)[%c111292928, %c8947712]
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
