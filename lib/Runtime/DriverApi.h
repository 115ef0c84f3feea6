//===- DriverApi.h - Resolved CUDA driver entry points ----------*- C++ -*-===//
//
// The table of driver entry points, one function pointer per line of
// DriverSymbols.def, typed from cuda.h's own declarations. Runtime sources
// call the driver only through this table and the FA4_CU_CHECK macro, so
// every call is checked and its message carries the API name.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_LIB_RUNTIME_DRIVERAPI_H
#define FA4_LIB_RUNTIME_DRIVERAPI_H

#include "fa4/Runtime/Driver.h"

#include <cuda.h>

namespace fa4::runtime {

/// One pointer per driver entry point; `<ApiName>Fn` calls `ExportedSymbol`.
struct DriverApi {
#define FA4_CU_SYMBOL(ApiName, ExportedSymbol)                                 \
  decltype(&::ExportedSymbol) ApiName##Fn = nullptr;
#include "DriverSymbols.def"
};

} // namespace fa4::runtime

/// Calls the entry point `ApiName` of `DRIVER` with the remaining arguments and
/// returns the checked result as a Status; `WHAT` (a string) says what the
/// call was doing, for the message.
#define FA4_CU_CHECK(DRIVER, WHAT, ApiName, ...)                               \
  (DRIVER).check((DRIVER).api().ApiName##Fn(__VA_ARGS__), #ApiName, WHAT)

#endif // FA4_LIB_RUNTIME_DRIVERAPI_H
