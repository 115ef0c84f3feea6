//===- KernelFileFuzzer.cpp - the kernel-file reader under libFuzzer ------===//
//
// Any bytes as a kernel file: parsed, its description and binary verified,
// and, when it is accepted, written back and read again identical.
//
//===----------------------------------------------------------------------===//

#include "fa4/KernelFormat/KernelFile.h"

#include <cstdlib>
#include <string_view>

using namespace fa4::runtime;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char *>(data), size);
  Expected<KernelFile> file = parseKernelFile(bytes);
  if (!file.ok())
    return 0;
  (void)verifyKernelBinary(*file);
  Expected<std::string> written = serializeKernelFile(*file);
  if (!written.ok())
    std::abort(); // an accepted file must serialize
  Expected<KernelFile> again = parseKernelFile(*written);
  if (!again.ok() || !(*again == *file))
    std::abort(); // and read back the same
  return 0;
}
