//===- Files.cpp - reading and writing the files a user names -------------===//
//
// POSIX, so that a directory, a device or a FIFO is recognised before it is
// read (std::ifstream reads /dev/zero forever and throws on a directory).
//
//===----------------------------------------------------------------------===//

#include "fa4/KernelFormat/Files.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace fa4::runtime;

/// What a file that is not regular is, for a refusal.
static const char *kindOf(mode_t mode) {
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISCHR(mode) || S_ISBLK(mode))
    return "a device";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a regular file";
}

Expected<std::string> fa4::runtime::readRegularFile(const std::string &path,
                                                    const std::string &what,
                                                    uint64_t limit) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return Status::error("cannot open " + what + " '" + path +
                         "': " + std::strerror(errno));
  struct stat info;
  if (::fstat(fd, &info) != 0) {
    int error = errno;
    ::close(fd);
    return Status::error("cannot read " + what + " '" + path +
                         "': " + std::strerror(error));
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    return Status::error(what + " '" + path + "' is " + kindOf(info.st_mode) +
                         ", not a regular file");
  }
  if (uint64_t(info.st_size) > limit) {
    ::close(fd);
    return Status::error(what + " '" + path + "' has " +
                         std::to_string(info.st_size) +
                         " bytes, more than the " + std::to_string(limit) +
                         " a " + what + " may have");
  }
  std::string bytes(size_t(info.st_size), '\0');
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int error = errno;
      ::close(fd);
      return Status::error("cannot read " + what + " '" + path +
                           "': " + std::strerror(error));
    }
    if (n == 0)
      break;
    done += size_t(n);
  }
  ::close(fd);
  // A file that shrank while it was read.
  bytes.resize(done);
  return bytes;
}

Status fa4::runtime::checkWritableFile(const std::string &path,
                                       const std::string &what) {
  struct stat info;
  bool existed = ::stat(path.c_str(), &info) == 0;
  if (existed && S_ISDIR(info.st_mode))
    return Status::error(what + " '" + path +
                         "' is a directory; name a file to write");
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NONBLOCK,
                  0644);
  if (fd < 0)
    return Status::error("cannot write " + what + " '" + path +
                         "': " + std::strerror(errno));
  ::close(fd);
  if (!existed)
    ::unlink(path.c_str());
  return Status::success();
}

Status fa4::runtime::makeDirectories(const std::string &path,
                                     const std::string &what) {
  std::string prefix;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i < path.size() && path[i] != '/') {
      prefix += path[i];
      continue;
    }
    if (!prefix.empty() && ::mkdir(prefix.c_str(), 0755) != 0 &&
        errno != EEXIST)
      return Status::error("cannot create " + what + " '" + prefix +
                           "': " + std::strerror(errno));
    if (i < path.size())
      prefix += '/';
  }
  struct stat info;
  if (::stat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
    return Status::error(what + " '" + path + "' is not a directory");
  return Status::success();
}

Status fa4::runtime::checkWritableDirectory(const std::string &path,
                                            const std::string &what) {
  if (Status s = makeDirectories(path, what); !s.ok())
    return s;
  std::string probe = path + "/.fa4-write-check-XXXXXX";
  int fd = ::mkstemp(probe.data());
  if (fd < 0)
    return Status::error("cannot write in " + what + " '" + path +
                         "': " + std::strerror(errno));
  ::close(fd);
  ::unlink(probe.c_str());
  return Status::success();
}
