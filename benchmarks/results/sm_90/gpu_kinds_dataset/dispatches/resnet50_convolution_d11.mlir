module {
  util.global private @__device_0 = #hal.device.target<"cuda", [#hal.executable.target<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>]> : !hal.device
  hal.executable private @main$async_dispatch_11 {
    hal.executable.variant public @cuda_nvptx_fb target(<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>) {
      hal.executable.export public @main$async_dispatch_11_conv_64x56x56x64x3x3_f32 ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) count(%arg0: !hal.device) -> (index, index, index) {
        %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
        hal.return %x, %y, %z : index, index, index
      }
      builtin.module {
        func.func @main$async_dispatch_11_conv_64x56x56x64x3x3_f32() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [32, 1, 1] subgroup_size = 32>} {
          %cst = arith.constant 0.000000e+00 : f32
          %cst_0 = arith.constant dense_resource<torch_tensor_64_torch.float32_24> : tensor<64xf32>
          %cst_1 = arith.constant dense_resource<torch_tensor_64_torch.float32_26> : tensor<64xf32>
          %cst_2 = arith.constant dense_resource<torch_tensor_64_torch.float32_27> : tensor<64xf32>
          %c7225344 = arith.constant 7225344 : index
          %c895680 = arith.constant 895680 : index
          %c15872 = arith.constant 15872 : index
          %c0 = arith.constant 0 : index
          %0 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(0) alignment(64) offset(%c7225344) flags("ReadOnly|Indirect") : memref<64x58x58xf32, strided<[3364, 58, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %1 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%c895680) flags(ReadOnly) : memref<64x64x3x3xf32, strided<[576, 9, 3, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %2 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(2) alignment(64) offset(%c15872) flags(ReadOnly) : memref<64xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %3 = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(3) alignment(64) offset(%c0) flags(Indirect) : memref<64x56x56xf32, #hal.descriptor_type<storage_buffer>>
          %4 = iree_codegen.load_from_buffer %0 : memref<64x58x58xf32, strided<[3364, 58, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<64x58x58xf32>
          %5 = iree_codegen.load_from_buffer %1 : memref<64x64x3x3xf32, strided<[576, 9, 3, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<64x64x3x3xf32>
          %6 = iree_codegen.load_from_buffer %2 : memref<64xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<64xf32>
          %7 = tensor.empty() : tensor<64x56x56xf32>
          %8 = linalg.fill ins(%cst : f32) outs(%7 : tensor<64x56x56xf32>) -> tensor<64x56x56xf32>
          %9 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d1 + d4, d2 + d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%4, %5 : tensor<64x58x58xf32>, tensor<64x64x3x3xf32>) outs(%8 : tensor<64x56x56xf32>) attrs =  {lowering_config = #iree_gpu.lowering_config<{reduction = [0, 0, 0, 1, 3, 3], thread = [1, 1, 1, 0, 0, 0], workgroup = [1, 4, 8, 0, 0, 0]}>, root_op = #iree_codegen.root_op<set = 0>} {
          ^bb0(%in: f32, %in_3: f32, %out: f32):
            %11 = arith.mulf %in, %in_3 : f32
            %12 = arith.addf %out, %11 : f32
            linalg.yield %12 : f32
          } -> tensor<64x56x56xf32>
          %10 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%9, %cst_0, %6, %cst_1, %cst_2 : tensor<64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) outs(%7 : tensor<64x56x56xf32>) {
          ^bb0(%in: f32, %in_3: f32, %in_4: f32, %in_5: f32, %in_6: f32, %out: f32):
            %11 = arith.subf %in, %in_3 : f32
            %12 = arith.mulf %11, %in_4 : f32
            %13 = arith.mulf %12, %in_5 : f32
            %14 = arith.addf %13, %in_6 : f32
            %15 = arith.cmpf ugt, %14, %cst : f32
            %16 = arith.select %15, %14, %cst : f32
            linalg.yield %16 : f32
          } -> tensor<64x56x56xf32>
          iree_codegen.store_to_buffer %10, %3 : tensor<64x56x56xf32> into memref<64x56x56xf32, #hal.descriptor_type<storage_buffer>>
          return
        }
        iree_codegen.dispatch_config @main$async_dispatch_11_conv_64x56x56x64x3x3_f32 {
        ^bb0(%arg0: !hal.device):
          %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
          iree_codegen.yield %x, %y, %z : index, index, index
        }
      }
    }
  }
  util.global private mutable @main$async_dispatch_11_cuda_nvptx_fb_main$async_dispatch_11_conv_64x56x56x64x3x3_f32_buffer : !hal.buffer
  util.initializer {
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %allocator = hal.device.allocator<%device : !hal.device> : !hal.allocator
    %memory_type = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
    %buffer_usage = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage"> : i32
    %c120240640 = arith.constant 120240640 : index
    %buffer = hal.allocator.allocate<%allocator : !hal.allocator> affinity(%queue_affinity) type(%memory_type) usage(%buffer_usage) : !hal.buffer{%c120240640}
    util.global.store %buffer, @main$async_dispatch_11_cuda_nvptx_fb_main$async_dispatch_11_conv_64x56x56x64x3x3_f32_buffer : !hal.buffer
    util.return
  }
  util.func public @main$async_dispatch_11_cuda_nvptx_fb_main$async_dispatch_11_conv_64x56x56x64x3x3_f32(%arg0: i32) attributes {iree.abi.stub, iree.reflection = {iree.benchmark = "dispatch"}} {
    %0 = arith.index_cast %arg0 : i32 to index
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %cmd = hal.command_buffer.create device(%device : !hal.device) mode("OneShot|AllowInlineExecution") categories(Dispatch) affinity(%queue_affinity) : !hal.command_buffer
    %main$async_dispatch_11_cuda_nvptx_fb_main$async_dispatch_11_conv_64x56x56x64x3x3_f32_buffer = util.global.load @main$async_dispatch_11_cuda_nvptx_fb_main$async_dispatch_11_conv_64x56x56x64x3x3_f32_buffer : !hal.buffer
    %c0 = arith.constant 0 : index
    %c8947712 = arith.constant 8947712 : index
    %c102329024 = arith.constant 102329024 : index
    %c111276800 = arith.constant 111276800 : index
    %c16128 = arith.constant 16128 : index
    %c111292928 = arith.constant 111292928 : index
    %workgroup_x, %workgroup_y, %workgroup_z = hal.executable.calculate_workgroups device(%device : !hal.device) target(@main$async_dispatch_11::@cuda_nvptx_fb::@main$async_dispatch_11_conv_64x56x56x64x3x3_f32) : index, index, index
    %exe = hal.executable.lookup device(%device : !hal.device) executable(@main$async_dispatch_11) : !hal.executable
    %function_id = hal.executable.lookup.function target(%exe : !hal.executable) function(@main$async_dispatch_11::@cuda_nvptx_fb::@main$async_dispatch_11_conv_64x56x56x64x3x3_f32) : i64
    %c1 = arith.constant 1 : index
    scf.for %arg1 = %c0 to %0 step %c1 {
      hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%function_id] workgroups([%workgroup_x, %workgroup_y, %workgroup_z]) bindings([
        (%main$async_dispatch_11_cuda_nvptx_fb_main$async_dispatch_11_conv_64x56x56x64x3x3_f32_buffer : !hal.buffer)[%c0, %c8947712], 
        (%main$async_dispatch_11_cuda_nvptx_fb_main$async_dispatch_11_conv_64x56x56x64x3x3_f32_buffer : !hal.buffer)[%c8947712, %c102329024], 
        (%main$async_dispatch_11_cuda_nvptx_fb_main$async_dispatch_11_conv_64x56x56x64x3x3_f32_buffer : !hal.buffer)[%c111276800, %c16128], 
        (%main$async_dispatch_11_cuda_nvptx_fb_main$async_dispatch_11_conv_64x56x56x64x3x3_f32_buffer : !hal.buffer)[%c111292928, %c8947712]
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
