module {
  util.global private @__device_0 = #hal.device.target<"cuda", [#hal.executable.target<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>]> : !hal.device
  hal.executable private @main$async_dispatch_17 {
    hal.executable.variant public @cuda_nvptx_fb target(<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>) {
      hal.executable.export public @main$async_dispatch_17_matmul_like_128x28x28x512_f32 ordinal(0) layout(#hal.pipeline.layout<constants = 6, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) count(%arg0: !hal.device) -> (index, index, index) {
        %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
        hal.return %x, %y, %z : index, index, index
      }
      builtin.module {
        func.func @main$async_dispatch_17_matmul_like_128x28x28x512_f32() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [32, 8, 1] subgroup_size = 32, {gpu_pipeline_options = #iree_gpu.pipeline_options<no_reduce_shared_memory_bank_conflicts = true, use_igemm_convolution = false>}>} {
          %cst = arith.constant 0.000000e+00 : f32
          %c4096 = arith.constant 4096 : index
          %0 = hal.interface.constant.load layout(<constants = 6, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(0) : i32
          %1 = hal.interface.constant.load layout(<constants = 6, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(1) : i32
          %2 = hal.interface.constant.load layout(<constants = 6, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(2) : i32
          %3 = hal.interface.constant.load layout(<constants = 6, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(3) : i32
          %4 = hal.interface.constant.load layout(<constants = 6, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(4) : i32
          %5 = hal.interface.constant.load layout(<constants = 6, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(5) : i32
          %6 = arith.index_castui %0 : i32 to index
          %7 = arith.index_castui %1 : i32 to index
          %8 = arith.index_castui %2 : i32 to index
          %9 = arith.index_castui %3 : i32 to index
          %10 = arith.index_castui %4 : i32 to index
          %11 = arith.index_castui %5 : i32 to index
          %12:6 = util.assume.int 
              %6[<umin = 401408, umax = 401408, udiv = 401408>, <umin = 2007040, umax = 2007040, udiv = 2007040>, <umin = 401408, umax = 401408, udiv = 401408>], 
              %7[<umin = 2616000, umax = 2616000, udiv = 2616000>, <umin = 3730112, umax = 3730112, udiv = 3730112>, <umin = 4844224, umax = 4844224, udiv = 4844224>], 
              %8[<umin = 27648, umax = 27648, udiv = 27648>, <umin = 36864, umax = 36864, udiv = 36864>, <umin = 46080, umax = 46080, udiv = 46080>], 
              %9[<umin = 28160, umax = 28160, udiv = 28160>, <umin = 37376, umax = 37376, udiv = 37376>, <umin = 46592, umax = 46592, udiv = 46592>], 
              %10[<umin = 28672, umax = 28672, udiv = 28672>, <umin = 37888, umax = 37888, udiv = 37888>, <umin = 47104, umax = 47104, udiv = 47104>], 
              %11[<umin = 2007040, umax = 2007040, udiv = 2007040>, <umin = 3612672, umax = 3612672, udiv = 3612672>, <umin = 3612672, umax = 3612672, udiv = 3612672>]
            : index, index, index, index, index, index
          %13 = hal.interface.binding.subspan layout(<constants = 6, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(0) alignment(64) offset(%12#0) flags("ReadOnly|Indirect") : memref<512x28x28xf32, strided<[784, 28, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %14 = hal.interface.binding.subspan layout(<constants = 6, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%12#1) flags(ReadOnly) : memref<128x512xf32, strided<[512, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %15 = hal.interface.binding.subspan layout(<constants = 6, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%12#2) flags(ReadOnly) : memref<128xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %16 = hal.interface.binding.subspan layout(<constants = 6, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(2) alignment(64) offset(%c4096) flags(ReadOnly) : memref<128xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %17 = hal.interface.binding.subspan layout(<constants = 6, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%12#3) flags(ReadOnly) : memref<128xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %18 = hal.interface.binding.subspan layout(<constants = 6, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%12#4) flags(ReadOnly) : memref<128xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %19 = hal.interface.binding.subspan layout(<constants = 6, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(3) alignment(64) offset(%12#5) flags(Indirect) : memref<128x30x30xf32, strided<[900, 30, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %subview = memref.subview %19[0, 1, 1] [128, 28, 28] [1, 1, 1] : memref<128x30x30xf32, strided<[900, 30, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> to memref<128x28x28xf32, strided<[900, 30, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %20 = iree_codegen.load_from_buffer %13 : memref<512x28x28xf32, strided<[784, 28, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<512x28x28xf32>
          %21 = iree_codegen.load_from_buffer %14 : memref<128x512xf32, strided<[512, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<128x512xf32>
          %22 = iree_codegen.load_from_buffer %15 : memref<128xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<128xf32>
          %23 = iree_codegen.load_from_buffer %16 : memref<128xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<128xf32>
          %24 = iree_codegen.load_from_buffer %17 : memref<128xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<128xf32>
          %25 = iree_codegen.load_from_buffer %18 : memref<128xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<128xf32>
          %26 = tensor.empty() : tensor<128x28x28xf32>
          %27 = linalg.fill ins(%cst : f32) outs(%26 : tensor<128x28x28xf32>) -> tensor<128x28x28xf32>
          %28 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%20, %21 : tensor<512x28x28xf32>, tensor<128x512xf32>) outs(%27 : tensor<128x28x28xf32>) attrs =  {lowering_config = #iree_gpu.lowering_config<{reduction = [0, 0, 0, 32], thread = [1, 1, 16, 0], workgroup = [1, 32, 128, 1]}>, root_op = #iree_codegen.root_op<set = 0>} {
          ^bb0(%in: f32, %in_0: f32, %out: f32):
            %30 = arith.mulf %in, %in_0 : f32
            %31 = arith.addf %out, %30 : f32
            linalg.yield %31 : f32
          } -> tensor<128x28x28xf32>
          %29 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%28, %22, %23, %24, %25 : tensor<128x28x28xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>) outs(%26 : tensor<128x28x28xf32>) {
          ^bb0(%in: f32, %in_0: f32, %in_1: f32, %in_2: f32, %in_3: f32, %out: f32):
            %30 = arith.subf %in, %in_0 : f32
            %31 = arith.mulf %30, %in_1 : f32
            %32 = arith.mulf %31, %in_2 : f32
            %33 = arith.addf %32, %in_3 : f32
            %34 = arith.cmpf ugt, %33, %cst : f32
            %35 = arith.select %34, %33, %cst : f32
            linalg.yield %35 : f32
          } -> tensor<128x28x28xf32>
          iree_codegen.store_to_buffer %29, %subview : tensor<128x28x28xf32> into memref<128x28x28xf32, strided<[900, 30, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          return
        }
        iree_codegen.dispatch_config @main$async_dispatch_17_matmul_like_128x28x28x512_f32 {
        ^bb0(%arg0: !hal.device):
          %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
          iree_codegen.yield %x, %y, %z : index, index, index
        }
      }
    }
  }
  util.global private mutable @main$async_dispatch_17_cuda_nvptx_fb_main$async_dispatch_17_matmul_like_128x28x28x512_f32_buffer : !hal.buffer
  util.initializer {
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %allocator = hal.device.allocator<%device : !hal.device> : !hal.allocator
    %memory_type = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
    %buffer_usage = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage"> : i32
    %c120240640 = arith.constant 120240640 : index
    %buffer = hal.allocator.allocate<%allocator : !hal.allocator> affinity(%queue_affinity) type(%memory_type) usage(%buffer_usage) : !hal.buffer{%c120240640}
    util.global.store %buffer, @main$async_dispatch_17_cuda_nvptx_fb_main$async_dispatch_17_matmul_like_128x28x28x512_f32_buffer : !hal.buffer
    util.return
  }
  util.func public @main$async_dispatch_17_cuda_nvptx_fb_main$async_dispatch_17_matmul_like_128x28x28x512_f32(%arg0: i32) attributes {iree.abi.stub, iree.reflection = {iree.benchmark = "dispatch"}} {
    %0 = arith.index_cast %arg0 : i32 to index
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %cmd = hal.command_buffer.create device(%device : !hal.device) mode("OneShot|AllowInlineExecution") categories(Dispatch) affinity(%queue_affinity) : !hal.command_buffer
    %c401408_i32 = arith.constant 401408 : i32
    %c4844224_i32 = arith.constant 4844224 : i32
    %c46080_i32 = arith.constant 46080 : i32
    %c46592_i32 = arith.constant 46592 : i32
    %c47104_i32 = arith.constant 47104 : i32
    %c3612672_i32 = arith.constant 3612672 : i32
    %main$async_dispatch_17_cuda_nvptx_fb_main$async_dispatch_17_matmul_like_128x28x28x512_f32_buffer = util.global.load @main$async_dispatch_17_cuda_nvptx_fb_main$async_dispatch_17_matmul_like_128x28x28x512_f32_buffer : !hal.buffer
    %c0 = arith.constant 0 : index
    %c8947712 = arith.constant 8947712 : index
    %c102329024 = arith.constant 102329024 : index
    %c111276800 = arith.constant 111276800 : index
    %c16128 = arith.constant 16128 : index
    %c111292928 = arith.constant 111292928 : index
    %workgroup_x, %workgroup_y, %workgroup_z = hal.executable.calculate_workgroups device(%device : !hal.device) target(@main$async_dispatch_17::@cuda_nvptx_fb::@main$async_dispatch_17_matmul_like_128x28x28x512_f32) : index, index, index
    %exe = hal.executable.lookup device(%device : !hal.device) executable(@main$async_dispatch_17) : !hal.executable
    %function_id = hal.executable.lookup.function target(%exe : !hal.executable) function(@main$async_dispatch_17::@cuda_nvptx_fb::@main$async_dispatch_17_matmul_like_128x28x28x512_f32) : i64
    %c1 = arith.constant 1 : index
    scf.for %arg1 = %c0 to %0 step %c1 {
      hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%function_id] workgroups([%workgroup_x, %workgroup_y, %workgroup_z]) constants([%c401408_i32, %c4844224_i32, %c46080_i32, %c46592_i32, %c47104_i32, %c3612672_i32]) bindings([
        (%main$async_dispatch_17_cuda_nvptx_fb_main$async_dispatch_17_matmul_like_128x28x28x512_f32_buffer : !hal.buffer)[%c0, %c8947712], 
        (%main$async_dispatch_17_cuda_nvptx_fb_main$async_dispatch_17_matmul_like_128x28x28x512_f32_buffer : !hal.buffer)[%c8947712, %c102329024], 
        (%main$async_dispatch_17_cuda_nvptx_fb_main$async_dispatch_17_matmul_like_128x28x28x512_f32_buffer : !hal.buffer)[%c111276800, %c16128], 
        (%main$async_dispatch_17_cuda_nvptx_fb_main$async_dispatch_17_matmul_like_128x28x28x512_f32_buffer : !hal.buffer)[%c111292928, %c8947712]
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
