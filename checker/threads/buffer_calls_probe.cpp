// Run with the shim preloaded: each wrapped C library call that has the kernel reach a buffer must run the
// kernel-access hook first, on the calling thread, with the buffer, its length and the direction, and leave the
// call's result and errno as they are. Built fortified, so that the __*_chk forms are the ones called where the
// compiler knows a buffer's size. Exit 0 when every call did, 1 when one did not, 77 when the shim is not
// preloaded.
#include <stdio.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "checker/threads/thread_shim.hpp"

namespace {

struct Reach {
  const void* buffer;
  std::size_t bytes;
  int kernel_writes;
};
std::vector<Reach> reached;
int failures = 0;

bool keys_open = false;  // the hook's answer with no buffer: nothing to open for this thread
int record(const void* buffer, std::size_t bytes, int kernel_writes) {
  errno = EDOM;  // a hook that changes errno must not change the program's
  if (buffer == nullptr && bytes == 0) return keys_open ? 0 : 1;
  reached.push_back({buffer, bytes, kernel_writes});
  return 1;
}

// The calls since the last check reached exactly these buffers.
void expect(const char* call, std::vector<Reach> expected) {
  bool same = reached.size() == expected.size();
  for (std::size_t i = 0; same && i < expected.size(); ++i)
    same = reached[i].buffer == expected[i].buffer && reached[i].bytes == expected[i].bytes &&
           reached[i].kernel_writes == expected[i].kernel_writes;
  if (!same) {
    std::printf("%s: the hook saw %zu buffer(s), not the %zu expected\n", call, reached.size(), expected.size());
    ++failures;
  }
  reached.clear();
}

}  // namespace

int main() {
  const auto set_hooks = hazardlab::check::shim::preloaded_hook_setter();
  if (set_hooks == nullptr) {
    std::puts("the thread shim is not preloaded");
    return 77;
  }
  char out[100], in[100], out2[50], in2[50];
  std::memset(out, 'a', sizeof out);
  std::memset(out2, 'b', sizeof out2);
  int fds[2];
  if (pipe(fds) != 0) return 1;
  set_hooks(nullptr, nullptr, &record);

  errno = 0;
  if (write(fds[1], out, sizeof out) != 100 || errno != 0) ++failures;
  expect("write", {{out, 100, 0}});
  if (read(fds[0], in, sizeof in) != 100) ++failures;
  expect("read", {{in, 100, 1}});
  if (read(-1, in, sizeof in) != -1 || errno != EBADF) {
    std::puts("read on a closed descriptor: not the C library's result and errno");
    ++failures;
  }
  expect("read (failing)", {{in, 100, 1}});

  const iovec outs[2] = {{out, 10}, {out2, 20}}, ins[2] = {{in, 10}, {in2, 20}};
  if (writev(fds[1], outs, 2) != 30) ++failures;
  expect("writev", {{out, 10, 0}, {out2, 20, 0}});
  if (readv(fds[0], ins, 2) != 30) ++failures;
  expect("readv", {{in, 10, 1}, {in2, 20, 1}});

  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0) return 1;
  if (send(pair[0], out, 40, 0) != 40) ++failures;
  expect("send", {{out, 40, 0}});
  if (recv(pair[1], in, sizeof in, 0) != 40) ++failures;
  expect("recv", {{in, 100, 1}});
  if (sendto(pair[0], out, 30, 0, nullptr, 0) != 30) ++failures;
  expect("sendto", {{out, 30, 0}});
  if (recvfrom(pair[1], in, 30, 0, nullptr, nullptr) != 30) ++failures;
  expect("recvfrom", {{in, 30, 1}});
  iovec message_out{out2, 25}, message_in{in2, 25};
  msghdr sent{}, received{};
  sent.msg_iov = &message_out;
  sent.msg_iovlen = 1;
  received.msg_iov = &message_in;
  received.msg_iovlen = 1;
  if (sendmsg(pair[0], &sent, 0) != 25) ++failures;
  expect("sendmsg", {{out2, 25, 0}});
  if (recvmsg(pair[1], &received, 0) != 25) ++failures;
  expect("recvmsg", {{in2, 25, 1}});

  FILE* file = tmpfile();
  if (file == nullptr) return 1;
  if (fwrite(out, 4, 25, file) != 25) ++failures;
  expect("fwrite", {{out, 100, 0}});
  rewind(file);
  if (fread(in, 5, 20, file) != 20) ++failures;
  expect("fread", {{in, 100, 1}});
  if (pwrite(fileno(file), out2, 50, 7) != 50) ++failures;
  expect("pwrite", {{out2, 50, 0}});
  if (pread(fileno(file), in2, 50, 7) != 50) ++failures;
  expect("pread", {{in2, 50, 1}});
  // Lengths the compiler cannot check against the buffers: fortified calls.
  volatile std::size_t unknown = 50;
  if (pread(fileno(file), in2, unknown, 7) != 50) ++failures;
  expect("pread, fortified", {{in2, 50, 1}});
  rewind(file);
  if (fread(in, 1, unknown, file) != 50) ++failures;
  expect("fread, fortified", {{in, 50, 1}});
  if (write(fds[1], out, 60) != 60 || read(fds[0], in, unknown) != 50) ++failures;
  expect("read, fortified", {{out, 60, 0}, {in, 50, 1}});
  if (send(pair[0], out, 20, 0) != 20 || recv(pair[1], in, unknown, 0) != 20) ++failures;
  expect("recv, fortified", {{out, 20, 0}, {in, 50, 1}});
  fclose(file);

  // A thread with every key open: an I/O vector is not even read (a bad one is the kernel's to refuse).
  keys_open = true;
  volatile std::uintptr_t unmapped = 16;  // the compiler cannot know it: a plain call, as a program would make
  const auto* unreadable = reinterpret_cast<const iovec*>(unmapped);
  if (writev(fds[1], unreadable, 2) != -1 || errno != EFAULT) ++failures;
  expect("writev of an unreadable vector, keys open", {});
  keys_open = false;

  set_hooks(nullptr, nullptr, nullptr);
  if (write(fds[1], out, 1) != 1 || read(fds[0], in, 1) != 1) ++failures;
  expect("read and write with no hook", {});
  std::printf("%d call(s) did not run the hook as expected\n", failures);
  return failures == 0 ? 0 : 1;
}
