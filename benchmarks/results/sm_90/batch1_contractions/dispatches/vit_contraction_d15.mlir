module {
  util.global private @__device_0 = #hal.device.target<"cuda", [#hal.executable.target<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>]> : !hal.device
  hal.executable private @main$async_dispatch_15 {
    hal.executable.variant public @cuda_nvptx_fb target(<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>) {
      hal.executable.export public @main$async_dispatch_15_batch_matmul_1x197x3072x768_f32 ordinal(0) layout(#hal.pipeline.layout<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) count(%arg0: !hal.device) -> (index, index, index) {
        %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
        hal.return %x, %y, %z : index, index, index
      }
      builtin.module {
        func.func @main$async_dispatch_15_batch_matmul_1x197x3072x768_f32() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [32, 8, 1] subgroup_size = 32, {gpu_pipeline_options = #iree_gpu.pipeline_options<no_reduce_shared_memory_bank_conflicts = true, use_igemm_convolution = false>}>} {
          %cst = arith.constant 5.000000e-01 : f32
          %cst_0 = arith.constant 1.000000e+00 : f32
          %cst_1 = arith.constant 1.41421354 : f32
          %cst_2 = arith.constant 0.000000e+00 : f32
          %0 = hal.interface.constant.load layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(0) : i32
          %1 = hal.interface.constant.load layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(1) : i32
          %2 = hal.interface.constant.load layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(2) : i32
          %3 = hal.interface.constant.load layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(3) : i32
          %4 = arith.index_castui %0 : i32 to index
          %5 = arith.index_castui %1 : i32 to index
          %6 = arith.index_castui %2 : i32 to index
          %7 = arith.index_castui %3 : i32 to index
          %8:4 = util.assume.int 
              %4[<umin = 1676096, umax = 1676096, udiv = 1676096>, <umin = 1676096, umax = 1676096, udiv = 1676096>, <umin = 1676096, umax = 1676096, udiv = 1676096>, <umin = 1676096, umax = 1676096, udiv = 1676096>, <umin = 1676096, umax = 1676096, udiv = 1676096>, <umin = 1676096, umax = 1676096, udiv = 1676096>, <umin = 1676096, umax = 1676096, udiv = 1676096>, <umin = 1676096, umax = 1676096, udiv = 1676096>, <umin = 1676096, umax = 1676096, udiv = 1676096>, <umin = 1676096, umax = 1676096, udiv = 1676096>, <umin = 1676096, umax = 1676096, udiv = 1676096>, <umin = 1210368, umax = 1210368, udiv = 1210368>], 
              %5[<umin = 10042368, umax = 10042368, udiv = 10042368>, <umin = 38353920, umax = 38353920, udiv = 38353920>, <umin = 66665472, umax = 66665472, udiv = 66665472>, <umin = 94977024, umax = 94977024, udiv = 94977024>, <umin = 123288576, umax = 123288576, udiv = 123288576>, <umin = 151600128, umax = 151600128, udiv = 151600128>, <umin = 179911680, umax = 179911680, udiv = 179911680>, <umin = 208223232, umax = 208223232, udiv = 208223232>, <umin = 236534784, umax = 236534784, udiv = 236534784>, <umin = 264846336, umax = 264846336, udiv = 264846336>, <umin = 293157888, umax = 293157888, udiv = 293157888>, <umin = 321469440, umax = 321469440, udiv = 321469440>], 
              %6[<umin = 343550976, umax = 343550976, udiv = 343550976>, <umin = 343538688, umax = 343538688, udiv = 343538688>, <umin = 343526400, umax = 343526400, udiv = 343526400>, <umin = 343514112, umax = 343514112, udiv = 343514112>, <umin = 343501824, umax = 343501824, udiv = 343501824>, <umin = 343489536, umax = 343489536, udiv = 343489536>, <umin = 343477248, umax = 343477248, udiv = 343477248>, <umin = 343464960, umax = 343464960, udiv = 343464960>, <umin = 343452672, umax = 343452672, udiv = 343452672>, <umin = 343440384, umax = 343440384, udiv = 343440384>, <umin = 343428096, umax = 343428096, udiv = 343428096>, <umin = 343415808, umax = 343415808, udiv = 343415808>], 
              %7[<umin = 2281280, umax = 2281280, udiv = 2281280>, <umin = 2281280, umax = 2281280, udiv = 2281280>, <umin = 2281280, umax = 2281280, udiv = 2281280>, <umin = 2281280, umax = 2281280, udiv = 2281280>, <umin = 2281280, umax = 2281280, udiv = 2281280>, <umin = 2281280, umax = 2281280, udiv = 2281280>, <umin = 2281280, umax = 2281280, udiv = 2281280>, <umin = 2281280, umax = 2281280, udiv = 2281280>, <umin = 2281280, umax = 2281280, udiv = 2281280>, <umin = 2281280, umax = 2281280, udiv = 2281280>, <umin = 2281280, umax = 2281280, udiv = 2281280>, <umin = 1815552, umax = 1815552, udiv = 1815552>]
            : index, index, index, index
          %9 = hal.interface.binding.subspan layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(0) alignment(64) offset(%8#0) flags("ReadOnly|Indirect") : memref<1x197x768xf32, strided<[151296, 768, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %10 = hal.interface.binding.subspan layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%8#1) flags(ReadOnly) : memref<1x768x3072xf32, strided<[2359296, 3072, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %11 = hal.interface.binding.subspan layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%8#2) flags(ReadOnly) : memref<3072xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %12 = hal.interface.binding.subspan layout(<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(2) alignment(64) offset(%8#3) flags(Indirect) : memref<1x197x3072xf32, strided<[605184, 3072, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %13 = iree_codegen.load_from_buffer %9 : memref<1x197x768xf32, strided<[151296, 768, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<1x197x768xf32>
          %14 = iree_codegen.load_from_buffer %10 : memref<1x768x3072xf32, strided<[2359296, 3072, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<1x768x3072xf32>
          %15 = iree_codegen.load_from_buffer %11 : memref<3072xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<3072xf32>
          %16 = tensor.empty() : tensor<1x197x3072xf32>
          %17 = linalg.fill ins(%cst_2 : f32) outs(%16 : tensor<1x197x3072xf32>) -> tensor<1x197x3072xf32>
          %18 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%13, %14 : tensor<1x197x768xf32>, tensor<1x768x3072xf32>) outs(%17 : tensor<1x197x3072xf32>) attrs =  {lowering_config = #iree_gpu.lowering_config<{reduction = [0, 0, 0, 32], thread = [1, 1, 16, 0], workgroup = [0, 32, 128, 1]}>, root_op = #iree_codegen.root_op<set = 0>} {
          ^bb0(%in: f32, %in_3: f32, %out: f32):
            %20 = arith.mulf %in, %in_3 : f32
            %21 = arith.addf %out, %20 : f32
            linalg.yield %21 : f32
          } -> tensor<1x197x3072xf32>
          %19 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%18, %15 : tensor<1x197x3072xf32>, tensor<3072xf32>) outs(%16 : tensor<1x197x3072xf32>) {
          ^bb0(%in: f32, %in_3: f32, %out: f32):
            %20 = arith.addf %in, %in_3 : f32
            %21 = arith.divf %20, %cst_1 : f32
            %22 = math.erf %21 : f32
            %23 = arith.addf %22, %cst_0 : f32
            %24 = arith.mulf %23, %cst : f32
            %25 = arith.mulf %20, %24 : f32
            linalg.yield %25 : f32
          } -> tensor<1x197x3072xf32>
          iree_codegen.store_to_buffer %19, %12 : tensor<1x197x3072xf32> into memref<1x197x3072xf32, strided<[605184, 3072, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          return
        }
        iree_codegen.dispatch_config @main$async_dispatch_15_batch_matmul_1x197x3072x768_f32 {
        ^bb0(%arg0: !hal.device):
          %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
          iree_codegen.yield %x, %y, %z : index, index, index
        }
      }
    }
  }
  util.global private mutable @main$async_dispatch_15_cuda_nvptx_fb_main$async_dispatch_15_batch_matmul_1x197x3072x768_f32_buffer : !hal.buffer
  util.initializer {
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %allocator = hal.device.allocator<%device : !hal.device> : !hal.allocator
    %memory_type = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
    %buffer_usage = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage"> : i32
    %c356277248 = arith.constant 356277248 : index
    %buffer = hal.allocator.allocate<%allocator : !hal.allocator> affinity(%queue_affinity) type(%memory_type) usage(%buffer_usage) : !hal.buffer{%c356277248}
    util.global.store %buffer, @main$async_dispatch_15_cuda_nvptx_fb_main$async_dispatch_15_batch_matmul_1x197x3072x768_f32_buffer : !hal.buffer
    util.return
  }
  util.func public @main$async_dispatch_15_cuda_nvptx_fb_main$async_dispatch_15_batch_matmul_1x197x3072x768_f32(%arg0: i32) attributes {iree.abi.stub, iree.reflection = {iree.benchmark = "dispatch"}} {
    %0 = arith.index_cast %arg0 : i32 to index
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %cmd = hal.command_buffer.create device(%device : !hal.device) mode("OneShot|AllowInlineExecution") categories(Dispatch) affinity(%queue_affinity) : !hal.command_buffer
    %c1210368_i32 = arith.constant 1210368 : i32
    %c321469440_i32 = arith.constant 321469440 : i32
    %c343415808_i32 = arith.constant 343415808 : i32
    %c1815552_i32 = arith.constant 1815552 : i32
    %main$async_dispatch_15_cuda_nvptx_fb_main$async_dispatch_15_batch_matmul_1x197x3072x768_f32_buffer = util.global.load @main$async_dispatch_15_cuda_nvptx_fb_main$async_dispatch_15_batch_matmul_1x197x3072x768_f32_buffer : !hal.buffer
    %c0 = arith.constant 0 : index
    %c4702016 = arith.constant 4702016 : index
    %c4702208 = arith.constant 4702208 : index
    %c346872768 = arith.constant 346872768 : index
    %c351575040 = arith.constant 351575040 : index
    %workgroup_x, %workgroup_y, %workgroup_z = hal.executable.calculate_workgroups device(%device : !hal.device) target(@main$async_dispatch_15::@cuda_nvptx_fb::@main$async_dispatch_15_batch_matmul_1x197x3072x768_f32) : index, index, index
    %exe = hal.executable.lookup device(%device : !hal.device) executable(@main$async_dispatch_15) : !hal.executable
    %function_id = hal.executable.lookup.function target(%exe : !hal.executable) function(@main$async_dispatch_15::@cuda_nvptx_fb::@main$async_dispatch_15_batch_matmul_1x197x3072x768_f32) : i64
    %c1 = arith.constant 1 : index
    scf.for %arg1 = %c0 to %0 step %c1 {
      hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%function_id] workgroups([%workgroup_x, %workgroup_y, %workgroup_z]) constants([%c1210368_i32, %c321469440_i32, %c343415808_i32, %c1815552_i32]) bindings([
        (%main$async_dispatch_15_cuda_nvptx_fb_main$async_dispatch_15_batch_matmul_1x197x3072x768_f32_buffer : !hal.buffer)[%c0, %c4702016], 
        (%main$async_dispatch_15_cuda_nvptx_fb_main$async_dispatch_15_batch_matmul_1x197x3072x768_f32_buffer : !hal.buffer)[%c4702208, %c346872768], 
        (%main$async_dispatch_15_cuda_nvptx_fb_main$async_dispatch_15_batch_matmul_1x197x3072x768_f32_buffer : !hal.buffer)[%c351575040, %c4702016]
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
