module {
  util.global private @__device_0 = #hal.device.target<"cuda", [#hal.executable.target<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>]> : !hal.device
  hal.executable private @main$async_dispatch_13 {
    hal.executable.variant public @cuda_nvptx_fb target(<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>) {
      hal.executable.export public @main$async_dispatch_13_matmul_like_128x56x56x256_f32 ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) count(%arg0: !hal.device) -> (index, index, index) {
        %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
        hal.return %x, %y, %z : index, index, index
      }
      builtin.module {
        func.func @main$async_dispatch_13_matmul_like_128x56x56x256_f32() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [32, 8, 1] subgroup_size = 32, {gpu_pipeline_options = #iree_gpu.pipeline_options<no_reduce_shared_memory_bank_conflicts = true, use_igemm_convolution = false>}>} {
          %cst = arith.constant 0.000000e+00 : f32
          %c802816 = arith.constant 802816 : index
          %c1108672 = arith.constant 1108672 : index
          %c12288 = arith.constant 12288 : index
          %c12800 = arith.constant 12800 : index
          %c13312 = arith.constant 13312 : index
          %c4096 = arith.constant 4096 : index
          %c7225344 = arith.constant 7225344 : index
          %0 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(0) alignment(64) offset(%c802816) flags("ReadOnly|Indirect") : memref<256x56x56xf32, strided<[3136, 56, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %1 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%c1108672) flags(ReadOnly) : memref<128x256xf32, strided<[256, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %2 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%c12288) flags(ReadOnly) : memref<128xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %3 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(2) alignment(64) offset(%c4096) flags(ReadOnly) : memref<128xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %4 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%c12800) flags(ReadOnly) : memref<128xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %5 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%c13312) flags(ReadOnly) : memref<128xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %6 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(3) alignment(64) offset(%c7225344) flags(Indirect) : memref<128x58x58xf32, strided<[3364, 58, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %subview = memref.subview %6[0, 1, 1] [128, 56, 56] [1, 1, 1] : memref<128x58x58xf32, strided<[3364, 58, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> to memref<128x56x56xf32, strided<[3364, 58, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %7 = iree_codegen.load_from_buffer %0 : memref<256x56x56xf32, strided<[3136, 56, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<256x56x56xf32>
          %8 = iree_codegen.load_from_buffer %1 : memref<128x256xf32, strided<[256, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<128x256xf32>
          %9 = iree_codegen.load_from_buffer %2 : memref<128xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<128xf32>
          %10 = iree_codegen.load_from_buffer %3 : memref<128xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<128xf32>
          %11 = iree_codegen.load_from_buffer %4 : memref<128xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<128xf32>
          %12 = iree_codegen.load_from_buffer %5 : memref<128xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<128xf32>
          %13 = tensor.empty() : tensor<128x56x56xf32>
          %14 = linalg.fill ins(%cst : f32) outs(%13 : tensor<128x56x56xf32>) -> tensor<128x56x56xf32>
          %15 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%7, %8 : tensor<256x56x56xf32>, tensor<128x256xf32>) outs(%14 : tensor<128x56x56xf32>) attrs =  {lowering_config = #iree_gpu.lowering_config<{reduction = [0, 0, 0, 32], thread = [1, 1, 16, 0], workgroup = [1, 32, 128, 1]}>, root_op = #iree_codegen.root_op<set = 0>} {
          ^bb0(%in: f32, %in_0: f32, %out: f32):
            %17 = arith.mulf %in, %in_0 : f32
            %18 = arith.addf %out, %17 : f32
            linalg.yield %18 : f32
          } -> tensor<128x56x56xf32>
          %16 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%15, %9, %10, %11, %12 : tensor<128x56x56xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>) outs(%13 : tensor<128x56x56xf32>) {
          ^bb0(%in: f32, %in_0: f32, %in_1: f32, %in_2: f32, %in_3: f32, %out: f32):
            %17 = arith.subf %in, %in_0 : f32
            %18 = arith.mulf %17, %in_1 : f32
            %19 = arith.mulf %18, %in_2 : f32
            %20 = arith.addf %19, %in_3 : f32
            %21 = arith.cmpf ugt, %20, %cst : f32
            %22 = arith.select %21, %20, %cst : f32
            linalg.yield %22 : f32
          } -> tensor<128x56x56xf32>
          iree_codegen.store_to_buffer %16, %subview : tensor<128x56x56xf32> into memref<128x56x56xf32, strided<[3364, 58, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          return
        }
        iree_codegen.dispatch_config @main$async_dispatch_13_matmul_like_128x56x56x256_f32 {
        ^bb0(%arg0: !hal.device):
          %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
          iree_codegen.yield %x, %y, %z : index, index, index
        }
      }
    }
  }
  util.global private mutable @main$async_dispatch_13_cuda_nvptx_fb_main$async_dispatch_13_matmul_like_128x56x56x256_f32_buffer : !hal.buffer
  util.initializer {
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %allocator = hal.device.allocator<%device : !hal.device> : !hal.allocator
    %memory_type = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
    %buffer_usage = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage"> : i32
    %c120240640 = arith.constant 120240640 : index
    %buffer = hal.allocator.allocate<%allocator : !hal.allocator> affinity(%queue_affinity) type(%memory_type) usage(%buffer_usage) : !hal.buffer{%c120240640}
    util.global.store %buffer, @main$async_dispatch_13_cuda_nvptx_fb_main$async_dispatch_13_matmul_like_128x56x56x256_f32_buffer : !hal.buffer
    util.return
  }
  util.func public @main$async_dispatch_13_cuda_nvptx_fb_main$async_dispatch_13_matmul_like_128x56x56x256_f32(%arg0: i32) attributes {iree.abi.stub, iree.reflection = {iree.benchmark = "dispatch"}} {
    %0 = arith.index_cast %arg0 : i32 to index
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %cmd = hal.command_buffer.create device(%device : !hal.device) mode("OneShot|AllowInlineExecution") categories(Dispatch) affinity(%queue_affinity) : !hal.command_buffer
    %main$async_dispatch_13_cuda_nvptx_fb_main$async_dispatch_13_matmul_like_128x56x56x256_f32_buffer = util.global.load @main$async_dispatch_13_cuda_nvptx_fb_main$async_dispatch_13_matmul_like_128x56x56x256_f32_buffer : !hal.buffer
    %c0 = arith.constant 0 : index
    %c8947712 = arith.constant 8947712 : index
    %c102329024 = arith.constant 102329024 : index
    %c111276800 = arith.constant 111276800 : index
    %c16128 = arith.constant 16128 : index
    %c111292928 = arith.constant 111292928 : index
    %workgroup_x, %workgroup_y, %workgroup_z = hal.executable.calculate_workgroups device(%device : !hal.device) target(@main$async_dispatch_13::@cuda_nvptx_fb::@main$async_dispatch_13_matmul_like_128x56x56x256_f32) : index, index, index
    %exe = hal.executable.lookup device(%device : !hal.device) executable(@main$async_dispatch_13) : !hal.executable
    %function_id = hal.executable.lookup.function target(%exe : !hal.executable) function(@main$async_dispatch_13::@cuda_nvptx_fb::@main$async_dispatch_13_matmul_like_128x56x56x256_f32) : i64
    %c1 = arith.constant 1 : index
    scf.for %arg1 = %c0 to %0 step %c1 {
      hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%function_id] workgroups([%workgroup_x, %workgroup_y, %workgroup_z]) bindings([
        (%main$async_dispatch_13_cuda_nvptx_fb_main$async_dispatch_13_matmul_like_128x56x56x256_f32_buffer : !hal.buffer)[%c0, %c8947712], 
        (%main$async_dispatch_13_cuda_nvptx_fb_main$async_dispatch_13_matmul_like_128x56x56x256_f32_buffer : !hal.buffer)[%c8947712, %c102329024], 
        (%main$async_dispatch_13_cuda_nvptx_fb_main$async_dispatch_13_matmul_like_128x56x56x256_f32_buffer : !hal.buffer)[%c111276800, %c16128], 
        (%main$async_dispatch_13_cuda_nvptx_fb_main$async_dispatch_13_matmul_like_128x56x56x256_f32_buffer : !hal.buffer)[%c111292928, %c8947712]
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
