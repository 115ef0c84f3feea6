//===- TensorMap.cpp - TMA tensor maps ------------------------------------===//
//
// The encoding of a TMA tensor map by cuTensorMapEncodeTiled, after the
// rules (fa4/KernelFormat/TmaRules.h) are checked.
//
//===----------------------------------------------------------------------===//

#include "fa4/Runtime/TensorMap.h"

#include "DriverApi.h"

using namespace fa4::runtime;

static CUtensorMapDataType dataType(ElementType type) {
  switch (type) {
  case ElementType::BF16:
    return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  case ElementType::F16:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  case ElementType::F32:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  case ElementType::I32:
    return CU_TENSOR_MAP_DATA_TYPE_INT32;
  }
  return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
}

static CUtensorMapSwizzle swizzleMode(Swizzle swizzle) {
  switch (swizzle) {
  case Swizzle::None:
    return CU_TENSOR_MAP_SWIZZLE_NONE;
  case Swizzle::B32:
    return CU_TENSOR_MAP_SWIZZLE_32B;
  case Swizzle::B64:
    return CU_TENSOR_MAP_SWIZZLE_64B;
  case Swizzle::B128:
    return CU_TENSOR_MAP_SWIZZLE_128B;
  }
  return CU_TENSOR_MAP_SWIZZLE_NONE;
}

Expected<CUtensorMap> fa4::runtime::encodeTensorMap(const Driver &driver,
                                                    const TensorMapSpec &spec,
                                                    CUdeviceptr globalAddress) {
  if (Status status = checkTensorMap(spec, globalAddress); !status.ok())
    return status;

  std::vector<cuuint64_t> dims(spec.globalDims.begin(), spec.globalDims.end());
  std::vector<cuuint64_t> strides(spec.globalStrides.begin(),
                                  spec.globalStrides.end());
  std::vector<cuuint32_t> box(spec.boxDims.begin(), spec.boxDims.end());
  std::vector<cuuint32_t> elementStrides(spec.rank(), 1);
  CUtensorMap map;
  std::string what = "encoding a " + describeTensorMap(spec);
  Status status = FA4_CU_CHECK(
      driver, what, cuTensorMapEncodeTiled, &map, dataType(spec.elementType),
      spec.rank(), reinterpret_cast<void *>(globalAddress), dims.data(),
      strides.data(), box.data(), elementStrides.data(),
      CU_TENSOR_MAP_INTERLEAVE_NONE, swizzleMode(spec.swizzle),
      CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
      spec.oobFill == OobFill::Zero
          ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE
          : CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
  if (!status.ok())
    return status;
  return map;
}
