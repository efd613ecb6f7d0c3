package scenario

import (
	"slices"
	"testing"
)

// The consumer keys files use, derived from consumer/config's tags: a
// renamed Java setting or Go field must not change a key silently.
func TestSettingKeys(t *testing.T) {
	var got, share []string
	for _, f := range settingFields() {
		got = append(got, f.key+"="+f.field)
		if f.share {
			share = append(share, f.key)
		}
	}
	want := []string{
		"retry_backoff=RetryBackoff", "retry_backoff_max=RetryBackoffMax", "reconnect_backoff=ReconnectBackoff",
		"reconnect_backoff_max=ReconnectBackoffMax", "socket_connection_setup_timeout=SocketConnectionSetupTimeout",
		"socket_connection_setup_timeout_max=SocketConnectionSetupTimeoutMax", "request_timeout=RequestTimeout",
		"default_api_timeout=DefaultAPITimeout", "max_poll_interval=MaxPollInterval", "metadata_max_age=MetadataMaxAge",
		"max_poll_records=MaxPollRecords", "fetch_max_wait=FetchMaxWait", "fetch_max_bytes=FetchMaxBytes",
		"max_partition_fetch_bytes=MaxPartitionFetchBytes", "group_instance_id=GroupInstanceID",
		"auto_offset_reset=AutoOffsetReset", "enable_auto_commit=EnableAutoCommit", "auto_commit_interval=AutoCommitInterval",
		"fetch_min_bytes=FetchMinBytes", "isolation_level=IsolationLevel", "max_buffered_records=MaxBufferedRecords",
	}
	if !slices.Equal(got, want) {
		t.Errorf("setting keys\n got %q\nwant %q", got, want)
	}
	wantShare := []string{"retry_backoff", "retry_backoff_max", "reconnect_backoff", "reconnect_backoff_max",
		"socket_connection_setup_timeout", "socket_connection_setup_timeout_max", "request_timeout", "default_api_timeout",
		"max_poll_interval", "metadata_max_age", "max_poll_records", "fetch_max_wait", "fetch_max_bytes",
		"max_partition_fetch_bytes", "max_buffered_records"}
	if !slices.Equal(share, wantShare) {
		t.Errorf("share setting keys\n got %q\nwant %q", share, wantShare)
	}
}
