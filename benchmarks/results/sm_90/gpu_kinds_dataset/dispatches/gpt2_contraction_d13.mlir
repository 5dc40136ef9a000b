module {
  util.global private @__device_0 = #hal.device.target<"cuda", [#hal.executable.target<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>]> : !hal.device
  hal.executable private @main$async_dispatch_13 {
    hal.executable.variant public @cuda_nvptx_fb target(<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_90", features = "+ptx80", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, <NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, <NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 64], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, max_workgroup_counts = [2147483647, 65535, 65535]>, chip = <wgp_count = 132, sku = "h100">>}>) {
      hal.executable.export public @main$async_dispatch_13_matmul_128x768x3072_f32 ordinal(0) layout(#hal.pipeline.layout<constants = 2, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) count(%arg0: !hal.device) -> (index, index, index) {
        %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
        hal.return %x, %y, %z : index, index, index
      }
      builtin.module {
        func.func @main$async_dispatch_13_matmul_128x768x3072_f32() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [32, 8, 1] subgroup_size = 32, {gpu_pipeline_options = #iree_gpu.pipeline_options<no_reduce_shared_memory_bank_conflicts = true, use_igemm_convolution = false>}>} {
          %cst = arith.constant 0.000000e+00 : f32
          %c1179648 = arith.constant 1179648 : index
          %c393216 = arith.constant 393216 : index
          %c0 = arith.constant 0 : index
          %0 = hal.interface.constant.load layout(<constants = 2, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(0) : i32
          %1 = hal.interface.constant.load layout(<constants = 2, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) ordinal(1) : i32
          %2 = arith.index_castui %0 : i32 to index
          %3 = arith.index_castui %1 : i32 to index
          %4:2 = util.assume.int 
              %2[<umin = 466446336, umax = 466446336, udiv = 466446336>, <umin = 438113280, umax = 438113280, udiv = 438113280>, <umin = 409780224, umax = 409780224, udiv = 409780224>, <umin = 381447168, umax = 381447168, udiv = 381447168>, <umin = 353114112, umax = 353114112, udiv = 353114112>, <umin = 324781056, umax = 324781056, udiv = 324781056>, <umin = 296448000, umax = 296448000, udiv = 296448000>, <umin = 268114944, umax = 268114944, udiv = 268114944>, <umin = 239781888, umax = 239781888, udiv = 239781888>, <umin = 211448832, umax = 211448832, udiv = 211448832>, <umin = 183115776, umax = 183115776, udiv = 183115776>, <umin = 154782720, umax = 154782720, udiv = 154782720>], 
              %3[<umin = 649377792, umax = 649377792, udiv = 649377792>, <umin = 649359360, umax = 649359360, udiv = 649359360>, <umin = 649340928, umax = 649340928, udiv = 649340928>, <umin = 649322496, umax = 649322496, udiv = 649322496>, <umin = 649304064, umax = 649304064, udiv = 649304064>, <umin = 649285632, umax = 649285632, udiv = 649285632>, <umin = 649267200, umax = 649267200, udiv = 649267200>, <umin = 649248768, umax = 649248768, udiv = 649248768>, <umin = 649230336, umax = 649230336, udiv = 649230336>, <umin = 649211904, umax = 649211904, udiv = 649211904>, <umin = 649193472, umax = 649193472, udiv = 649193472>, <umin = 649175040, umax = 649175040, udiv = 649175040>]
            : index, index
          %5 = hal.interface.binding.subspan layout(<constants = 2, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(0) alignment(64) offset(%c1179648) flags("ReadOnly|Indirect") : memref<128x3072xf32, strided<[3072, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %6 = hal.interface.binding.subspan layout(<constants = 2, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%4#0) flags(ReadOnly) : memref<3072x768xf32, strided<[768, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %7 = hal.interface.binding.subspan layout(<constants = 2, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(0) alignment(64) offset(%c393216) flags("ReadOnly|Indirect") : memref<128x768xf32, strided<[768, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %8 = hal.interface.binding.subspan layout(<constants = 2, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(1) alignment(64) offset(%4#1) flags(ReadOnly) : memref<768xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>>
          %9 = hal.interface.binding.subspan layout(<constants = 2, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) binding(2) alignment(64) offset(%c0) flags(Indirect) : memref<128x768xf32, #hal.descriptor_type<storage_buffer>>
          %10 = iree_codegen.load_from_buffer %5 : memref<128x3072xf32, strided<[3072, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<128x3072xf32>
          %11 = iree_codegen.load_from_buffer %6 : memref<3072x768xf32, strided<[768, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<3072x768xf32>
          %12 = iree_codegen.load_from_buffer %7 : memref<128x768xf32, strided<[768, 1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<128x768xf32>
          %13 = iree_codegen.load_from_buffer %8 : memref<768xf32, strided<[1], offset: ?>, #hal.descriptor_type<storage_buffer>> -> tensor<768xf32>
          %14 = tensor.empty() : tensor<128x768xf32>
          %15 = linalg.fill ins(%cst : f32) outs(%14 : tensor<128x768xf32>) -> tensor<128x768xf32>
          %16 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%10, %11 : tensor<128x3072xf32>, tensor<3072x768xf32>) outs(%15 : tensor<128x768xf32>) attrs =  {lowering_config = #iree_gpu.lowering_config<{reduction = [0, 0, 32], thread = [1, 16, 0], workgroup = [32, 128, 1]}>, root_op = #iree_codegen.root_op<set = 0>} {
          ^bb0(%in: f32, %in_0: f32, %out: f32):
            %18 = arith.mulf %in, %in_0 : f32
            %19 = arith.addf %out, %18 : f32
            linalg.yield %19 : f32
          } -> tensor<128x768xf32>
          %17 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%12, %16, %13 : tensor<128x768xf32>, tensor<128x768xf32>, tensor<768xf32>) outs(%14 : tensor<128x768xf32>) {
          ^bb0(%in: f32, %in_0: f32, %in_1: f32, %out: f32):
            %18 = arith.addf %in_0, %in_1 : f32
            %19 = arith.addf %in, %18 : f32
            linalg.yield %19 : f32
          } -> tensor<128x768xf32>
          iree_codegen.store_to_buffer %17, %9 : tensor<128x768xf32> into memref<128x768xf32, #hal.descriptor_type<storage_buffer>>
          return
        }
        iree_codegen.dispatch_config @main$async_dispatch_13_matmul_128x768x3072_f32 {
        ^bb0(%arg0: !hal.device):
          %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
          iree_codegen.yield %x, %y, %z : index, index, index
        }
      }
    }
  }
  util.global private mutable @main$async_dispatch_13_cuda_nvptx_fb_main$async_dispatch_13_matmul_128x768x3072_f32_buffer : !hal.buffer
  util.initializer {
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %allocator = hal.device.allocator<%device : !hal.device> : !hal.allocator
    %memory_type = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
    %buffer_usage = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage"> : i32
    %c655294464 = arith.constant 655294464 : index
    %buffer = hal.allocator.allocate<%allocator : !hal.allocator> affinity(%queue_affinity) type(%memory_type) usage(%buffer_usage) : !hal.buffer{%c655294464}
    util.global.store %buffer, @main$async_dispatch_13_cuda_nvptx_fb_main$async_dispatch_13_matmul_128x768x3072_f32_buffer : !hal.buffer
    util.return
  }
  util.func public @main$async_dispatch_13_cuda_nvptx_fb_main$async_dispatch_13_matmul_128x768x3072_f32(%arg0: i32) attributes {iree.abi.stub, iree.reflection = {iree.benchmark = "dispatch"}} {
    %0 = arith.index_cast %arg0 : i32 to index
    %device, %queue_affinity = hal.device.resolve on(#hal.device.affinity<@__device_0>) : !hal.device, i64
    %cmd = hal.command_buffer.create device(%device : !hal.device) mode("OneShot|AllowInlineExecution") categories(Dispatch) affinity(%queue_affinity) : !hal.command_buffer
    %c154782720_i32 = arith.constant 154782720 : i32
    %c649175040_i32 = arith.constant 649175040 : i32
    %main$async_dispatch_13_cuda_nvptx_fb_main$async_dispatch_13_matmul_128x768x3072_f32_buffer = util.global.load @main$async_dispatch_13_cuda_nvptx_fb_main$async_dispatch_13_matmul_128x768x3072_f32_buffer : !hal.buffer
    %c0 = arith.constant 0 : index
    %c2949120 = arith.constant 2949120 : index
    %c649396224 = arith.constant 649396224 : index
    %c652345344 = arith.constant 652345344 : index
    %workgroup_x, %workgroup_y, %workgroup_z = hal.executable.calculate_workgroups device(%device : !hal.device) target(@main$async_dispatch_13::@cuda_nvptx_fb::@main$async_dispatch_13_matmul_128x768x3072_f32) : index, index, index
    %exe = hal.executable.lookup device(%device : !hal.device) executable(@main$async_dispatch_13) : !hal.executable
    %function_id = hal.executable.lookup.function target(%exe : !hal.executable) function(@main$async_dispatch_13::@cuda_nvptx_fb::@main$async_dispatch_13_matmul_128x768x3072_f32) : i64
    %c1 = arith.constant 1 : index
    scf.for %arg1 = %c0 to %0 step %c1 {
      hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%function_id] workgroups([%workgroup_x, %workgroup_y, %workgroup_z]) constants([%c154782720_i32, %c649175040_i32]) bindings([
        (%main$async_dispatch_13_cuda_nvptx_fb_main$async_dispatch_13_matmul_128x768x3072_f32_buffer : !hal.buffer)[%c0, %c2949120], 
        (%main$async_dispatch_13_cuda_nvptx_fb_main$async_dispatch_13_matmul_128x768x3072_f32_buffer : !hal.buffer)[%c2949120, %c649396224], 
        (%main$async_dispatch_13_cuda_nvptx_fb_main$async_dispatch_13_matmul_128x768x3072_f32_buffer : !hal.buffer)[%c652345344, %c2949120]
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
