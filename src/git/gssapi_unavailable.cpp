// GSSAPI (Kerberos) entry points for the self-contained build (SM120CHECK_STATIC), where
// libgit2.a is linked: its HTTP "Negotiate" authentication (auth_negotiate.c) calls them, and
// Debian ships no static archive of MIT Kerberos' libgssapi_krb5. sm120check only reads local
// repositories and never reaches that code; should anything call it, each function reports
// GSS_S_UNAVAILABLE (releases succeed), which libgit2 turns into an authentication error. Not built otherwise.
//
// Signatures: RFC 2744 (GSS-API v2, C bindings). OM_uint32 is a 32-bit unsigned integer; the
// handles and sets are pointers, declared here as void* since no caller's layout is needed.
#include <cstdint>

namespace {
using OmUint32 = std::uint32_t;
/// GSS_S_UNAVAILABLE: routine error 16, in the major status' bits 16 to 23 (RFC 2744, 3.9.1).
constexpr OmUint32 kUnavailable = OmUint32{16} << 16;

OmUint32 unavailable(OmUint32* minor_status) {
  if (minor_status != nullptr) *minor_status = 0;
  return kUnavailable;
}
/// Releasing: nothing was ever allocated, so it succeeds (GSS_S_COMPLETE).
OmUint32 complete(OmUint32* minor_status) {
  if (minor_status != nullptr) *minor_status = 0;
  return 0;
}
}  // namespace

extern "C" {
// NOLINTBEGIN: names and parameters as RFC 2744 has them.
void* GSS_C_NT_HOSTBASED_SERVICE = nullptr;

OmUint32 gss_indicate_mechs(OmUint32* minor_status, void** /*mech_set*/) {
  return unavailable(minor_status);
}
OmUint32 gss_import_name(OmUint32* minor_status, const void* /*input_name_buffer*/,
                         const void* /*input_name_type*/, void** /*output_name*/) {
  return unavailable(minor_status);
}
OmUint32 gss_init_sec_context(OmUint32* minor_status, const void* /*claimant_cred_handle*/,
                              void** /*context_handle*/, const void* /*target_name*/,
                              const void* /*mech_type*/, OmUint32 /*req_flags*/,
                              OmUint32 /*time_req*/, const void* /*input_chan_bindings*/,
                              const void* /*input_token*/, void** /*actual_mech_type*/,
                              void* /*output_token*/, OmUint32* /*ret_flags*/,
                              OmUint32* /*time_rec*/) {
  return unavailable(minor_status);
}
OmUint32 gss_display_status(OmUint32* minor_status, OmUint32 /*status_value*/,
                            int /*status_type*/, const void* /*mech_type*/,
                            OmUint32* /*message_context*/, void* /*status_string*/) {
  return unavailable(minor_status);
}
OmUint32 gss_delete_sec_context(OmUint32* minor_status, void** /*context_handle*/,
                                void* /*output_token*/) {
  return complete(minor_status);
}
OmUint32 gss_release_buffer(OmUint32* minor_status, void* /*buffer*/) {
  return complete(minor_status);
}
OmUint32 gss_release_name(OmUint32* minor_status, void** /*name*/) {
  return complete(minor_status);
}
OmUint32 gss_release_oid_set(OmUint32* minor_status, void** /*set*/) {
  return complete(minor_status);
}
// NOLINTEND
}
