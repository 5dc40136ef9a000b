module {
  util.global private @__device_0 = #hal.device.target<"cuda", [#hal.executable.target<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>]> : !hal.device
  hal.executable private @main$async_dispatch_14 {
    hal.executable.variant public @cuda_nvptx_fb target(<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>) {
      hal.executable.export public @main$async_dispatch_14_batch_matmul_1x128x3072x768_f32 ordinal(0) layout(#hal.pipeline.layout<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) count(%arg0: !hal.device) -> (index, index, index) {
        %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
        hal.return %x, %y, %z : index, index, index
      }
      builtin.module {
        func.func @main$async_dispatch_14_batch_matmul_1x128x3072x768_f32() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [32, 8, 1] subgroup_size = 32, {gpu_pipeline_options = #iree_gpu.pipeline_options<no_reduce_shared_memory_bank_conflicts = true, use_igemm_convolution = false>}>} {
          %cst = arith.constant 5.000000e-01 : f32
          %cst_0 = arith.constant 1.000000e+00 : f32
          %cst_1 = arith.constant 1.41421354 : f32
          %cst_2 = arith.constant 0.000000e+00 : f32
          %c393216 = arith.constant 393216 : index
          %0 = hal.interface.constant.load layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(0) : i32
          %1 = hal.interface.constant.load layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(1) : i32
          %2 = hal.interface.constant.load layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(2) : i32
          %3 = arith.index_castui %0 : i32 to index
          %4 = arith.index_castui %1 : i32 to index
          %5 = arith.index_castui %2 : i32 to index
          %6:3 = util.assume.int 
              %3[<umin = 10223616, umax = 10223616, udiv = 10223616>, <umin = 38535168, umax = 38535168, udiv = 38535168>, <umin = 66846720, umax = 66846720, udiv = 66846720>, <umin = 95158272, umax = 95158272, udiv = 95158272>, <umin = 123469824, umax = 123469824, udiv = 123469824>, <umin = 151781376, umax = 151781376, udiv = 151781376>, <umin = 180092928, umax = 180092928, udiv = 180092928>, <umin = 208404480, umax = 208404480, udiv = 208404480>, <umin = 236716032, umax = 236716032, udiv = 236716032>, <umin = 265027584, umax = 265027584, udiv = 265027584>, <umin = 293339136, umax = 293339136, udiv = 293339136>, <umin = 321650688, umax = 321650688, udiv = 321650688>], 
              %4[<umin = 340660224, umax = 340660224, udiv = 340660224>, <umin = 340647936, umax = 340647936, udiv = 340647936>, <umin = 340635648, umax = 340635648, udiv = 340635648>, <umin = 340623360, umax = 340623360, udiv = 340623360>, <umin = 340611072, umax = 340611072, udiv = 340611072>, <umin = 340598784, umax = 340598784, udiv = 340598784>, <umin = 340586496, umax = 340586496, udiv = 340586496>, <umin = 340574208, umax = 340574208, udiv = 340574208>, <umin = 340561920, umax = 340561920, udiv = 340561920>, <umin = 340549632, umax = 340549632, udiv = 340549632>, <umin = 340537344, umax = 340537344, udiv = 340537344>, <umin = 340525056, umax = 340525056, udiv = 340525056>], 
              %5[<umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 1376256, umax = 1376256, udiv = 1376256>, <umin = 786432, umax = 786432, udiv = 786432>]
            : index, index, index
          %7 = hal.interface.binding.subspan layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(0) alignment(64) offset(%c393216) flags("ReadOnly|Indirect") : memref<1x128x768xf32, strided<[98304, 768, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %8 = hal.interface.binding.subspan layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%6#0) flags(ReadOnly) : memref<1x768x3072xf32, strided<[2359296, 3072, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %9 = hal.interface.binding.subspan layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%6#1) flags(ReadOnly) : memref<3072xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %10 = hal.interface.binding.subspan layout(<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(2) alignment(64) offset(%6#2) flags(Indirect) : memref<1x128x3072xf32, strided<[393216, 3072, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %11 = iree_codegen.load_from_buffer %7 : memref<1x128x768xf32, strided<[98304, 768, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<1x128x768xf32>
          %12 = iree_codegen.load_from_buffer %8 : memref<1x768x3072xf32, strided<[2359296, 3072, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<1x768x3072xf32>
          %13 = iree_codegen.load_from_buffer %9 : memref<3072xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<3072xf32>
          %14 = tensor.empty() : tensor<1x128x3072xf32>
          %15 = linalg.fill ins(%cst_2 : f32) outs(%14 : tensor<1x128x3072xf32>) -> tensor<1x128x3072xf32>
          %16 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%11, %12 : tensor<1x128x768xf32>, tensor<1x768x3072xf32>) outs(%15 : tensor<1x128x3072xf32>) attrs =  {lowering_config = #iree_gpu.lowering_config<{reduction = [0, 0, 0, 32], thread = [1, 1, 16, 0], workgroup = [0, 32, 128, 1]}>, root_op = #iree_codegen.root_op<set = 0>} {
          ^bb0(%in: f32, %in_3: f32, %out: f32):
            %18 = arith.mulf %in, %in_3 : f32
            %19 = arith.addf %out, %18 : f32
            linalg.yield %19 : f32
          } -> tensor<1x128x3072xf32>
          %17 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%16, %13 : tensor<1x128x3072xf32>, tensor<3072xf32>) outs(%14 : tensor<1x128x3072xf32>) {
          ^bb0(%in: f32, %in_3: f32, %out: f32):
            %18 = arith.addf %in, %in_3 : f32
            %19 = arith.divf %18, %cst_1 : f32
            %20 = math.erf %19 : f32
            %21 = arith.addf %20, %cst_0 : f32
            %22 = arith.mulf %21, %cst : f32
            %23 = arith.mulf %18, %22 : f32
            linalg.yield %23 : f32
          } -> tensor<1x128x3072xf32>
          iree_codegen.store_to_buffer %17, %10 : tensor<1x128x3072xf32> into memref<1x128x3072xf32, strided<[393216, 3072, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          return
        }
        iree_codegen.dispatch_config @main$async_dispatch_14_batch_matmul_1x128x3072x768_f32 {
        ^bb0(%arg0: !hal.device):
          %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
          iree_codegen.yield %x, %y, %z : index, index, index
        }
      }
    }
  }
  util.global private mutable @main$async_dispatch_14_cuda_nvptx_fb_main$async_dispatch_14_batch_matmul_1x128x3072x768_f32_buffer : !hal.buffer
  util.initializer {
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %allocator = hal.device.allocator<%device : !hal.device> : !hal.allocator
    %memory_type = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
    %buffer_usage = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage"> : i32
    %c440672256 = arith.constant 440672256 : index
    %buffer = hal.allocator.allocate<%allocator : !hal.allocator> affinity(%queue_affinity) type(%memory_type) usage(%buffer_usage) : !hal.buffer{%c440672256}
    util.global.store %buffer, @main$async_dispatch_14_cuda_nvptx_fb_main$async_dispatch_14_batch_matmul_1x128x3072x768_f32_buffer : !hal.buffer
    util.return
  }
  util.func public @main$async_dispatch_14_cuda_nvptx_fb_main$async_dispatch_14_batch_matmul_1x128x3072x768_f32(%arg0: i32) attributes {iree.abi.stub, iree.reflection = {iree.benchmark = "dispatch"}} {
    %0 = arith.index_cast %arg0 : i32 to index
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %cmd = hal.command_buffer.create device(%device : !hal.device) mode("OneShot|AllowInlineExecution") categories(Dispatch) affinity(%queue_affinity) : !hal.command_buffer
    %c321650688_i32 = arith.constant 321650688 : i32
    %c340525056_i32 = arith.constant 340525056 : i32
    %c786432_i32 = arith.constant 786432 : i32
    %main$async_dispatch_14_cuda_nvptx_fb_main$async_dispatch_14_batch_matmul_1x128x3072x768_f32_buffer = util.global.load @main$async_dispatch_14_cuda_nvptx_fb_main$async_dispatch_14_batch_matmul_1x128x3072x768_f32_buffer : !hal.buffer
    %c0 = arith.constant 0 : index
    %c2949120 = arith.constant 2949120 : index
    %c434774016 = arith.constant 434774016 : index
    %c437723136 = arith.constant 437723136 : index
    %workgroup_x, %workgroup_y, %workgroup_z = hal.executable.calculate_workgroups device(%device : !hal.device) target(@main$async_dispatch_14::@cuda_nvptx_fb::@main$async_dispatch_14_batch_matmul_1x128x3072x768_f32) : index, index, index
    %exe = hal.executable.lookup device(%device : !hal.device) executable(@main$async_dispatch_14) : !hal.executable
    %function_id = hal.executable.lookup.function target(%exe : !hal.executable) function(@main$async_dispatch_14::@cuda_nvptx_fb::@main$async_dispatch_14_batch_matmul_1x128x3072x768_f32) : i64
    %c1 = arith.constant 1 : index
    scf.for %arg1 = %c0 to %0 step %c1 {
      hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%function_id] workgroups([%workgroup_x, %workgroup_y, %workgroup_z]) constants([%c321650688_i32, %c340525056_i32, %c786432_i32]) bindings([
        (%main$async_dispatch_14_cuda_nvptx_fb_main$async_dispatch_14_batch_matmul_1x128x3072x768_f32_buffer : !hal.buffer)[%c0, %c2949120], 
        (%main$async_dispatch_14_cuda_nvptx_fb_main$async_dispatch_14_batch_matmul_1x128x3072x768_f32_buffer : !hal.buffer)[%c2949120, %c434774016], 
        (%main$async_dispatch_14_cuda_nvptx_fb_main$async_dispatch_14_batch_matmul_1x128x3072x768_f32_buffer : !hal.buffer)[%c437723136, %c2949120]
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
