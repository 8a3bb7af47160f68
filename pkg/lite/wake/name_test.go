package wake

import "testing"

var nameCases = []struct{ name, key, want string }{
	{"webhook with token and userinfo", "webhook https://ops:hunter2@hooks.example.com:8443/wake/mc?token=secret#x", "webhook https://hooks.example.com:8443"},
	{"webhook without port", "webhook http://10.0.0.5/start", "webhook http://10.0.0.5"},
	{"webhook stand-in of a test", "webhook sleepy", "webhook sleepy"},
	{"webhook stand-in with a query", "webhook a:b@sleepy/p?token=secret", "webhook sleepy"},
	{"exec with a password argument", "exec /opt/mc/bin/start --password=x --world survival", "exec start"},
	{"exec bare program", "exec start.sh", "exec start.sh"},
	{"exec without a command", "exec", "exec"},
	{"kubernetes", "kubernetes games/deployment/lobby", "kubernetes games/deployment/lobby"},
	{"docker", "docker survival", "docker survival"},
	{"unknown form", "ftp://user:pw@host", "target"},
}

func TestNameKeepsTheKindAndDropsSecrets(t *testing.T) {
	for _, tc := range nameCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Name(tc.key); got != tc.want {
				t.Fatalf("Name(%q) = %q, want %q", tc.key, got, tc.want)
			}
		})
	}
}
