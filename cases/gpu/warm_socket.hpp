#pragma once
// Messages with file descriptors over local sockets: how a case's client hands the warm worker
// its request and its own stdout and stderr, so that the case prints into the client's ctest log.
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace hazardlab::warm {

struct Message {
  std::string bytes;
  std::vector<int> fds;  // received descriptors belong to the receiver, who closes them
};

// An abstract-namespace address (no file to create or clean up) of at most 100 characters.
std::string abstract_name(const std::string& text);

int seqpacket_socket();                                 // -1 on failure
bool bind_and_listen(int fd, const std::string& name);  // false when the name is taken
bool connect_to(int fd, const std::string& name);
int accept_client(int listener);  // -1 on failure
bool socket_pair(int (&ends)[2]);
bool send_message(int fd, const std::string& bytes, const std::vector<int>& fds = {});
// std::nullopt when the peer closed the connection or the message was malformed.
std::optional<Message> receive_message(int fd);
// True when the connected peer runs as this user (a local socket is visible to every user).
bool peer_is_same_user(int fd);

void close_all(std::vector<int>& fds);

}  // namespace hazardlab::warm
