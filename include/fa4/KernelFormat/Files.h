//===- Files.h - reading and writing the files a user names -----*- C++ -*-===//
//
// The checks every file a user names goes through: an input must be a
// regular file (not a directory, a device such as /dev/zero, a FIFO or a
// socket) no larger than what it can hold, read to its size and no further;
// an output must be writable before any work is done for it, so that a run
// does not fail at its end on `--out DIR` or `--lse /proc/x`.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_KERNELFORMAT_FILES_H
#define FA4_KERNELFORMAT_FILES_H

#include "fa4/KernelFormat/Status.h"

#include <cstdint>
#include <string>

namespace fa4::runtime {

/// The bytes of the regular file at `path`; `what` names it in errors
/// ("kernel file", "input"). Refuses, without reading, what is not a regular
/// file and a file of more than `limit` bytes.
Expected<std::string> readRegularFile(const std::string &path,
                                      const std::string &what,
                                      uint64_t limit);

/// Checks that the file `path` can be written (created, or an existing
/// regular file opened for writing) without changing it: a file that did not
/// exist is created and removed again. `what` names it in errors.
Status checkWritableFile(const std::string &path, const std::string &what);

/// Creates the directory `path` and those above it that are missing; fails
/// when it is not a directory then. `what` names it in errors.
Status makeDirectories(const std::string &path, const std::string &what);

/// Creates the directory `path` (and those above it) when missing and
/// checks that a file can be made in it.
Status checkWritableDirectory(const std::string &path, const std::string &what);

} // namespace fa4::runtime

#endif // FA4_KERNELFORMAT_FILES_H
