// libssh2 entry points for the self-contained build (SM120CHECK_STATIC), where libgit2.a is
// linked: its SSH transport (transports/ssh.c, 37 functions) calls them. sm120check only reads
// local repositories and never reaches that code, and linking the real libssh2 pulled in
// OpenSSL's libcrypto and libssl for it: about 18,000 of the binary's 26,600 start-up
// relocations, 0.3-0.4 ms of every run's start on the H200 host (bench/README.md, issue 10).
// Here libssh2_init() succeeds (git_libgit2_init() calls it) and everything else fails as
// libssh2 fails: no session, no channel, LIBSSH2_ERROR_METHOD_NOT_SUPPORTED, so that libgit2
// reports an SSH error should anything ever ask for one. Not built otherwise.
//
// Signatures: libssh2.h (included, so a mismatch is an undefined symbol at link time).
#include <libssh2.h>

namespace {
constexpr int kUnsupported = LIBSSH2_ERROR_METHOD_NOT_SUPPORTED;
char kMessage[] = "SSH is not available in this build of sm120check";
}  // namespace

extern "C" {
// NOLINTBEGIN: names and parameters as libssh2.h has them.
int libssh2_init(int /*flags*/) { return 0; }
void libssh2_exit(void) {}

LIBSSH2_SESSION* libssh2_session_init_ex(LIBSSH2_ALLOC_FUNC((*/*my_alloc*/)),
                                         LIBSSH2_FREE_FUNC((*/*my_free*/)),
                                         LIBSSH2_REALLOC_FUNC((*/*my_realloc*/)),
                                         void* /*abstract*/) {
  return nullptr;
}
void** libssh2_session_abstract(LIBSSH2_SESSION* /*session*/) { return nullptr; }
int libssh2_session_free(LIBSSH2_SESSION* /*session*/) { return 0; }
int libssh2_session_handshake(LIBSSH2_SESSION* /*session*/, libssh2_socket_t /*sock*/) {
  return kUnsupported;
}
int libssh2_session_disconnect_ex(LIBSSH2_SESSION* /*session*/, int /*reason*/,
                                  const char* /*description*/, const char* /*lang*/) {
  return 0;
}
const char* libssh2_session_hostkey(LIBSSH2_SESSION* /*session*/, size_t* len, int* type) {
  if (len != nullptr) *len = 0;
  if (type != nullptr) *type = LIBSSH2_HOSTKEY_TYPE_UNKNOWN;
  return nullptr;
}
int libssh2_session_last_error(LIBSSH2_SESSION* /*session*/, char** errmsg, int* errmsg_len,
                               int /*want_buf*/) {
  if (errmsg != nullptr) *errmsg = kMessage;
  if (errmsg_len != nullptr) *errmsg_len = static_cast<int>(sizeof(kMessage) - 1);
  return kUnsupported;
}
int libssh2_session_method_pref(LIBSSH2_SESSION* /*session*/, int /*method_type*/,
                                const char* /*prefs*/) {
  return kUnsupported;
}
void libssh2_session_set_blocking(LIBSSH2_SESSION* /*session*/, int /*blocking*/) {}
const char* libssh2_hostkey_hash(LIBSSH2_SESSION* /*session*/, int /*hash_type*/) {
  return nullptr;
}

LIBSSH2_AGENT* libssh2_agent_init(LIBSSH2_SESSION* /*session*/) { return nullptr; }
int libssh2_agent_connect(LIBSSH2_AGENT* /*agent*/) { return kUnsupported; }
int libssh2_agent_disconnect(LIBSSH2_AGENT* /*agent*/) { return 0; }
void libssh2_agent_free(LIBSSH2_AGENT* /*agent*/) {}
int libssh2_agent_list_identities(LIBSSH2_AGENT* /*agent*/) { return kUnsupported; }
int libssh2_agent_get_identity(LIBSSH2_AGENT* /*agent*/, libssh2_agent_publickey** /*store*/,
                               libssh2_agent_publickey* /*prev*/) {
  return kUnsupported;
}
int libssh2_agent_userauth(LIBSSH2_AGENT* /*agent*/, const char* /*username*/,
                           libssh2_agent_publickey* /*identity*/) {
  return kUnsupported;
}

LIBSSH2_KNOWNHOSTS* libssh2_knownhost_init(LIBSSH2_SESSION* /*session*/) { return nullptr; }
void libssh2_knownhost_free(LIBSSH2_KNOWNHOSTS* /*hosts*/) {}
int libssh2_knownhost_readfile(LIBSSH2_KNOWNHOSTS* /*hosts*/, const char* /*filename*/,
                               int /*type*/) {
  return kUnsupported;
}
int libssh2_knownhost_checkp(LIBSSH2_KNOWNHOSTS* /*hosts*/, const char* /*host*/, int /*port*/,
                             const char* /*key*/, size_t /*keylen*/, int /*typemask*/,
                             libssh2_knownhost** /*knownhost*/) {
  return LIBSSH2_KNOWNHOST_CHECK_FAILURE;
}

int libssh2_userauth_authenticated(LIBSSH2_SESSION* /*session*/) { return 0; }
char* libssh2_userauth_list(LIBSSH2_SESSION* /*session*/, const char* /*username*/,
                            unsigned int /*username_len*/) {
  return nullptr;
}
int libssh2_userauth_password_ex(LIBSSH2_SESSION* /*session*/, const char* /*username*/,
                                 unsigned int /*username_len*/, const char* /*password*/,
                                 unsigned int /*password_len*/,
                                 LIBSSH2_PASSWD_CHANGEREQ_FUNC((*/*passwd_change_cb*/))) {
  return kUnsupported;
}
int libssh2_userauth_keyboard_interactive_ex(
    LIBSSH2_SESSION* /*session*/, const char* /*username*/, unsigned int /*username_len*/,
    LIBSSH2_USERAUTH_KBDINT_RESPONSE_FUNC((*/*response_callback*/))) {
  return kUnsupported;
}
int libssh2_userauth_publickey(LIBSSH2_SESSION* /*session*/, const char* /*username*/,
                               const unsigned char* /*pubkeydata*/, size_t /*pubkeydata_len*/,
                               LIBSSH2_USERAUTH_PUBLICKEY_SIGN_FUNC((*/*sign_callback*/)),
                               void** /*abstract*/) {
  return kUnsupported;
}
int libssh2_userauth_publickey_fromfile_ex(LIBSSH2_SESSION* /*session*/,
                                           const char* /*username*/,
                                           unsigned int /*username_len*/,
                                           const char* /*publickey*/,
                                           const char* /*privatekey*/,
                                           const char* /*passphrase*/) {
  return kUnsupported;
}
int libssh2_userauth_publickey_frommemory(LIBSSH2_SESSION* /*session*/, const char* /*username*/,
                                          size_t /*username_len*/,
                                          const char* /*publickeyfiledata*/,
                                          size_t /*publickeyfiledata_len*/,
                                          const char* /*privatekeyfiledata*/,
                                          size_t /*privatekeyfiledata_len*/,
                                          const char* /*passphrase*/) {
  return kUnsupported;
}

LIBSSH2_CHANNEL* libssh2_channel_open_ex(LIBSSH2_SESSION* /*session*/,
                                         const char* /*channel_type*/,
                                         unsigned int /*channel_type_len*/,
                                         unsigned int /*window_size*/,
                                         unsigned int /*packet_size*/, const char* /*message*/,
                                         unsigned int /*message_len*/) {
  return nullptr;
}
int libssh2_channel_process_startup(LIBSSH2_CHANNEL* /*channel*/, const char* /*request*/,
                                    unsigned int /*request_len*/, const char* /*message*/,
                                    unsigned int /*message_len*/) {
  return kUnsupported;
}
ssize_t libssh2_channel_read_ex(LIBSSH2_CHANNEL* /*channel*/, int /*stream_id*/, char* /*buf*/,
                                size_t /*buflen*/) {
  return kUnsupported;
}
ssize_t libssh2_channel_write_ex(LIBSSH2_CHANNEL* /*channel*/, int /*stream_id*/,
                                 const char* /*buf*/, size_t /*buflen*/) {
  return kUnsupported;
}
void libssh2_channel_set_blocking(LIBSSH2_CHANNEL* /*channel*/, int /*blocking*/) {}
int libssh2_channel_close(LIBSSH2_CHANNEL* /*channel*/) { return 0; }
int libssh2_channel_free(LIBSSH2_CHANNEL* /*channel*/) { return 0; }
// NOLINTEND
}
