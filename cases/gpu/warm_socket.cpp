#include "warm_socket.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>

namespace hazardlab::warm {
namespace {

constexpr std::size_t kMaxFds = 4;
constexpr std::size_t kMaxBytes = 4096;

socklen_t address_of(const std::string& name, sockaddr_un& address) {
  std::memset(&address, 0, sizeof address);
  address.sun_family = AF_UNIX;
  // sun_path[0] stays '\0': the abstract namespace.
  const std::size_t n = std::min(name.size(), sizeof address.sun_path - 1);
  std::memcpy(address.sun_path + 1, name.data(), n);
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
}

}  // namespace

std::string abstract_name(const std::string& text) { return text.substr(0, 100); }

int seqpacket_socket() { return ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0); }

bool bind_and_listen(int fd, const std::string& name) {
  sockaddr_un address;
  const socklen_t length = address_of(name, address);
  return ::bind(fd, reinterpret_cast<const sockaddr*>(&address), length) == 0 && ::listen(fd, 64) == 0;
}

bool connect_to(int fd, const std::string& name) {
  sockaddr_un address;
  const socklen_t length = address_of(name, address);
  return ::connect(fd, reinterpret_cast<const sockaddr*>(&address), length) == 0;
}

int accept_client(int listener) { return ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC); }

bool socket_pair(int (&ends)[2]) { return ::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ends) == 0; }

bool send_message(int fd, const std::string& bytes, const std::vector<int>& fds) {
  if (fds.size() > kMaxFds || bytes.empty() || bytes.size() > kMaxBytes) return false;
  iovec data{const_cast<char*>(bytes.data()), bytes.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)] = {};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  if (!fds.empty()) {
    message.msg_control = control;
    message.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(header), fds.data(), sizeof(int) * fds.size());
  }
  ssize_t sent;
  do sent = ::sendmsg(fd, &message, MSG_NOSIGNAL);
  while (sent < 0 && errno == EINTR);
  return sent == static_cast<ssize_t>(bytes.size());
}

std::optional<Message> receive_message(int fd) {
  Message out;
  out.bytes.resize(kMaxBytes);
  iovec data{out.bytes.data(), out.bytes.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)] = {};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  ssize_t got;
  do got = ::recvmsg(fd, &message, MSG_CMSG_CLOEXEC);
  while (got < 0 && errno == EINTR);
  for (cmsghdr* h = CMSG_FIRSTHDR(&message); h; h = CMSG_NXTHDR(&message, h)) {
    if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS) continue;
    const std::size_t n = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    out.fds.resize(n);
    std::memcpy(out.fds.data(), CMSG_DATA(h), n * sizeof(int));
  }
  if (got <= 0 || (message.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
    close_all(out.fds);
    return std::nullopt;
  }
  out.bytes.resize(static_cast<std::size_t>(got));
  return out;
}

bool peer_is_same_user(int fd) {
  ucred peer{};
  socklen_t length = sizeof peer;
  return ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &length) == 0 && peer.uid == ::getuid();
}

void close_all(std::vector<int>& fds) {
  for (int fd : fds) ::close(fd);
  fds.clear();
}

}  // namespace hazardlab::warm
