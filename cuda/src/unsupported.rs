//! Exported stand-ins for the driver API functions of `cuda.h` (CUDA 13.5) that sassport does not implement, so
//! that a program linked against NVIDIA's `libcuda.so` (`-lcuda`, the driver API used directly) loads with this
//! library instead of failing at start-up with an unresolved symbol. Each logs its name once and returns
//! `CUDA_ERROR_NOT_SUPPORTED`, like the stubs `cuGetProcAddress` hands out ([`crate::proc`]). The names are
//! the symbols `cuda.h` declares after its version macros (`gcc -E` over `cuda.h`), less those implemented.
//! When an entry point is implemented, its name leaves this list (the linker rejects a duplicate symbol).

use crate::result::CUresult;

macro_rules! unsupported {
    ($($name:ident),* $(,)?) => {
        $(
            #[no_mangle]
            pub extern "C" fn $name() -> CUresult {
                crate::proc::unsupported_call(stringify!($name))
            }
        )*
    };
}

unsupported![
    cuArrayGetMemoryRequirements, cuArrayGetPlane, cuArrayGetSparseProperties, cuCheckpointOperationComplete,
    cuCheckpointProcessCheckpoint, cuCheckpointProcessGetRestoreThreadId, cuCheckpointProcessGetState,
    cuCheckpointProcessLock, cuCheckpointProcessRestore, cuCheckpointProcessUnlock,
    cuCoredumpDeregisterCompleteCallback, cuCoredumpDeregisterStartCallback, cuCoredumpGetAttribute,
    cuCoredumpGetAttributeGlobal, cuCoredumpRegisterCompleteCallback, cuCoredumpRegisterStartCallback,
    cuCoredumpSetAttribute, cuCoredumpSetAttributeGlobal, cuCtxAttach, cuCtxDetach, cuCtxDisablePeerAccess,
    cuCtxEnablePeerAccess, cuCtxFromGreenCtx, cuCtxGetDevResource, cuCtxGetExecAffinity, cuCtxGetId,
    cuCtxGetSharedMemConfig, cuCtxRecordEvent, cuCtxResetPersistingL2Cache, cuCtxSetFlags,
    cuCtxSetSharedMemConfig, cuCtxWaitEvent, cuDestroyExternalMemory, cuDestroyExternalSemaphore,
    cuDevResourceGenerateDesc, cuDevSmResourceSplit, cuDevSmResourceSplitByCount, cuDeviceCanAccessPeer,
    cuDeviceGetByPCIBusId, cuDeviceGetCliqueCount, cuDeviceGetCliqueInfo, cuDeviceGetDevResource,
    cuDeviceGetExecAffinitySupport, cuDeviceGetFabricClusterUuid, cuDeviceGetGraphMemAttribute,
    cuDeviceGetHostAtomicCapabilities, cuDeviceGetLuid, cuDeviceGetNvSciSyncAttributes,
    cuDeviceGetP2PAtomicCapabilities, cuDeviceGetP2PAttribute, cuDeviceGetProperties,
    cuDeviceGetTexture1DLinearMaxWidth, cuDeviceGraphMemTrim, cuDeviceRegisterAsyncNotification,
    cuDeviceSetGraphMemAttribute, cuDeviceUnregisterAsyncNotification, cuExternalMemoryGetMappedBuffer,
    cuExternalMemoryGetMappedMipmappedArray, cuFabricCpyBatchAsync, cuFlushGPUDirectRDMAWrites,
    cuFuncGetModule, cuFuncGetName, cuFuncGetParamCount, cuFuncGetParamInfo, cuFuncIsLoaded, cuFuncLoad,
    cuFuncSetBlockShape, cuFuncSetSharedMemConfig, cuFuncSetSharedSize, cuGraphAddBatchMemOpNode,
    cuGraphAddChildGraphNode, cuGraphAddEventRecordNode,
    cuGraphAddEventWaitNode, cuGraphAddExternalSemaphoresSignalNode, cuGraphAddExternalSemaphoresWaitNode,
    cuGraphAddMemAllocNode, cuGraphAddMemFreeNode,
    cuGraphAddNode_v2, cuGraphAddNode_v3,
    cuGraphBatchMemOpNodeGetParams, cuGraphBatchMemOpNodeSetParams, cuGraphChildGraphNodeGetGraph,
    cuGraphConditionalHandleCreate, cuGraphDebugDotPrint,
    cuGraphDestroyNode, cuGraphEventRecordNodeGetEvent, cuGraphEventRecordNodeSetEvent,
    cuGraphEventWaitNodeGetEvent, cuGraphEventWaitNodeSetEvent, cuGraphExecBatchMemOpNodeSetParams,
    cuGraphExecChildGraphNodeSetParams, cuGraphExecEventRecordNodeSetEvent,
    cuGraphExecEventWaitNodeSetEvent, cuGraphExecExternalSemaphoresSignalNodeSetParams,
    cuGraphExecExternalSemaphoresWaitNodeSetParams, cuGraphExecGetFlags, cuGraphExecGetId,
    cuGraphExecHostNodeSetParams, cuGraphExecMemcpyNodeSetParams,
    cuGraphExecMemsetNodeSetParams, cuGraphExecNodeSetParams, cuGraphExecUpdate_v2,
    cuGraphExternalSemaphoresSignalNodeGetParams, cuGraphExternalSemaphoresSignalNodeSetParams,
    cuGraphExternalSemaphoresWaitNodeGetParams, cuGraphExternalSemaphoresWaitNodeSetParams,
    cuGraphGetEdges_v2, cuGraphGetId, cuGraphGetRootNodes, cuGraphHostNodeGetParams,
    cuGraphHostNodeSetParams,
    cuGraphKernelNodeCopyAttributes, cuGraphKernelNodeGetAttribute, cuGraphKernelNodeGetParams_v2,
    cuGraphKernelNodeSetAttribute, cuGraphKernelNodeSetParams_v2, cuGraphMemAllocNodeGetParams,
    cuGraphMemFreeNodeGetParams, cuGraphMemcpyNodeGetParams, cuGraphMemcpyNodeSetParams,
    cuGraphMemsetNodeGetParams, cuGraphMemsetNodeSetParams, 
    cuGraphNodeGetContainingGraph, cuGraphNodeGetDependencies_v2, cuGraphNodeGetDependentNodes_v2,
    cuGraphNodeGetEnabled, cuGraphNodeGetLocalId, cuGraphNodeGetParams, cuGraphNodeGetToolsId,
    cuGraphNodeSetEnabled, cuGraphNodeSetParams, cuGraphNodeSetParams_v2,
    cuGraphReleaseUserObject, cuGraphRemoveDependencies_v2, cuGraphRetainUserObject,
    cuGraphicsMapResources, cuGraphicsResourceGetMappedMipmappedArray, cuGraphicsResourceGetMappedPointer_v2,
    cuGraphicsResourceSetMapFlags_v2, cuGraphicsSubResourceGetMappedArray, cuGraphicsUnmapResources,
    cuGraphicsUnregisterResource, cuGreenCtxCreate, cuGreenCtxDestroy, cuGreenCtxGetDevResource,
    cuGreenCtxGetId, cuGreenCtxRecordEvent, cuGreenCtxStreamCreate, cuGreenCtxWaitEvent,
    cuImportExternalMemory, cuImportExternalSemaphore, cuIpcCloseMemHandle, cuIpcGetEventHandle,
    cuIpcGetMemHandle, cuIpcOpenEventHandle, cuIpcOpenMemHandle_v2, cuKernelGetLibrary, cuKernelGetName,
    cuKernelGetParamCount, cuKernelGetParamInfo, cuKernelSetCacheConfig, cuLaunch, cuLaunchCooperativeKernel,
    cuLaunchCooperativeKernelMultiDevice, cuLaunchGrid, cuLaunchGridAsync, cuLaunchKernelEx,
    cuLibraryEnumerateKernels, cuLibraryGetKernelCount, cuLibraryGetManaged, cuLibraryGetUnifiedFunction,
    cuLibraryLoadFromFile, cuLinkAddData_v2, cuLinkAddFile_v2, cuLinkComplete, cuLinkCreate_v2, cuLinkDestroy,
    cuLogicalEndpointAddDevice, cuLogicalEndpointBindAddr, cuLogicalEndpointBindMem, cuLogicalEndpointCreate,
    cuLogicalEndpointDestroy, cuLogicalEndpointExport, cuLogicalEndpointGetLimits, cuLogicalEndpointIdRelease,
    cuLogicalEndpointIdReserve, cuLogicalEndpointImport, cuLogicalEndpointQuery, cuLogicalEndpointUnbind,
    cuLogsCurrent, cuLogsDumpToFile, cuLogsDumpToMemory, cuLogsRegisterCallback, cuLogsUnregisterCallback,
    cuMemAddressFree, cuMemAddressReserve, cuMemAdvise_v2, cuMemBatchDecompressAsync, cuMemCreate,
    cuMemDiscardAndPrefetchBatchAsync, cuMemDiscardBatchAsync, cuMemExportToShareableHandle, cuMemGetAccess,
    cuMemGetAddressRange_v2, cuMemGetAllocationGranularity, cuMemGetAllocationPropertiesFromHandle,
    cuMemGetHandleForAddressRange, cuMemGetLocationInfo, cuMemHostGetDevicePointer_v2, cuMemHostRegister_v2,
    cuMemHostUnregister, cuMemImportFromShareableHandle, cuMemMap, cuMemMapArrayAsync, cuMemPoolExportPointer,
    cuMemPoolExportToShareableHandle, cuMemPoolImportFromShareableHandle, cuMemPoolImportPointer,
    cuMemPrefetchAsync_v2, cuMemPrefetchBatchAsync, cuMemRangeGetAttribute, cuMemRangeGetAttributes,
    cuMemRelease, cuMemRetainAllocationHandle, cuMemSetAccess, cuMemUnmap, cuMemcpy3DBatchAsync_v2, cuMemcpy3DPeer, cuMemcpy3DPeerAsync, cuMemcpy3DWithAttributesAsync,
    cuMemcpyAtoA_v2, cuMemcpyAtoD_v2, cuMemcpyAtoHAsync_v2, cuMemcpyAtoH_v2,
    cuMemcpyBatchAsync_v2, cuMemcpyDtoA_v2, cuMemcpyHtoAAsync_v2, cuMemcpyHtoA_v2, cuMemcpyPeer,
    cuMemcpyPeerAsync, cuMemcpyWithAttributesAsync, cuMemsetD16Async, cuMemsetD2D16Async, cuMemsetD2D16_v2,
    cuMemsetD2D32Async, cuMipmappedArrayCreate, cuMipmappedArrayDestroy, cuMipmappedArrayGetLevel,
    cuMipmappedArrayGetMemoryRequirements, cuMipmappedArrayGetSparseProperties, cuModuleEnumerateFunctions,
    cuModuleGetFunctionCount, cuModuleGetSurfRef, cuModuleGetTexRef, cuMulticastAddDevice,
    cuMulticastBindAddr, cuMulticastBindAddr_v2, cuMulticastBindMem, cuMulticastBindMem_v2, cuMulticastCreate,
    cuMulticastGetGranularity, cuMulticastUnbind, cuOccupancyMaxActiveClusters,
    cuOccupancyMaxPotentialClusterSize, cuParamSetSize, cuParamSetTexRef, cuParamSetf, cuParamSeti,
    cuParamSetv, cuPointerGetAttribute, cuPointerGetAttributes, cuPointerSetAttribute,
    cuSignalExternalSemaphoresAsync, cuStreamAttachMemAsync, cuStreamBatchMemOp_v2, cuStreamBeginCaptureToCig,
    cuStreamBeginCaptureToGraph, cuStreamBeginRecaptureToGraph,
    cuStreamCopyAttributes, cuStreamEndCaptureToCig, cuStreamGetAttribute,
    cuStreamGetDevResource, cuStreamGetGreenCtx,
    cuStreamSetAttribute, cuStreamUpdateCaptureDependencies_v2, cuStreamWaitValue32_v2,
    cuStreamWaitValue64_v2, cuStreamWriteValue32_v2, cuStreamWriteValue64_v2, cuSurfObjectGetResourceDesc, cuSurfRefGetArray, cuSurfRefSetArray,
    cuTensorMapEncodeIm2col, cuTensorMapEncodeIm2colWide, cuTensorMapEncodeTiled, cuTensorMapReplaceAddress,
    cuTensorMapSetAllocationClass, cuTexObjectGetResourceViewDesc, cuTexObjectGetTextureDesc, cuTexRefCreate, cuTexRefDestroy,
    cuTexRefGetAddressMode, cuTexRefGetAddress_v2, cuTexRefGetArray, cuTexRefGetBorderColor,
    cuTexRefGetFilterMode, cuTexRefGetFlags, cuTexRefGetFormat, cuTexRefGetMaxAnisotropy,
    cuTexRefGetMipmapFilterMode, cuTexRefGetMipmapLevelBias, cuTexRefGetMipmapLevelClamp,
    cuTexRefGetMipmappedArray, cuTexRefSetAddress2D_v3, cuTexRefSetAddressMode, cuTexRefSetAddress_v2,
    cuTexRefSetArray, cuTexRefSetBorderColor, cuTexRefSetFilterMode, cuTexRefSetFlags, cuTexRefSetFormat,
    cuTexRefSetMaxAnisotropy, cuTexRefSetMipmapFilterMode, cuTexRefSetMipmapLevelBias,
    cuTexRefSetMipmapLevelClamp, cuTexRefSetMipmappedArray,
    cuUserObjectCreate, cuUserObjectRelease, cuUserObjectRetain, cuWaitExternalSemaphoresAsync,
];
