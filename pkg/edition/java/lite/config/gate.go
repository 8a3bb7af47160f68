package config

// Keys of Gate's configuration that this Lite-only proxy accepts so that a
// Gate config file loads unchanged, but does not use. Each occurrence gets
// one warning instead of an unknown-key error.

const (
	fullProxyIgnored = "ignored: Gate full-proxy setting, no effect in Lite mode"
	topLevelIgnored  = "ignored: Gate section not supported by this Lite-only proxy"
)

// fullProxyKeys are the keys Gate's full proxy reads under `config:`.
var fullProxyKeys = []string{
	"onlineMode",
	"onlineModeKickExistingPlayers",
	"offlineModeUsernameBlacklist",
	"offlineModeUsernameBlacklistScope",
	"offlineModeUsernameBlacklistReason",
	"auth",
	"forwarding",
	"status",
	"query",
	"announceForge",
	"servers",
	"try",
	"forcedHosts",
	"failoverOnUnexpectedServerDisconnect",
	"packetLimiter",
	"compression",
	"proxyProtocolBackend",
	"shouldPreventClientProxyConnections",
	"acceptTransfers",
	"bungeePluginChannelEnabled",
	"builtinCommands",
	"requireBuiltinCommandPermissions",
	"announceProxyCommands",
	"forceKeyAuthentication",
	"shutdownReason",
	"via",
	"bedrock",
	"health",
}

// topLevelKeys are Gate's root sections besides `config` and `api`.
var topLevelKeys = []string{"editions", "healthService", "connect", "telemetry"}

func ignoredSet(keys []string, msg string) map[string]string {
	m := make(map[string]string, len(keys))
	for _, k := range keys {
		m[k] = msg
	}
	return m
}
