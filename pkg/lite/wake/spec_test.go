package wake

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseSpec(t *testing.T) {
	for _, tc := range []struct {
		name, text, ns, container string
		want                      Spec
		key                       string
	}{
		{"deployment in the service's namespace", "deployment/survival", "games", "",
			Spec{Kind: KindKubernetes, Resource: "deployment", Namespace: "games", Name: "survival"}, "kubernetes games/deployment/survival"},
		{"statefulset without a namespace", "statefulset/creative", "", "",
			Spec{Kind: KindKubernetes, Resource: "statefulset", Namespace: "default", Name: "creative"}, "kubernetes default/statefulset/creative"},
		{"namespace written", "mc/deployment/lobby", "games", "",
			Spec{Kind: KindKubernetes, Resource: "deployment", Namespace: "mc", Name: "lobby"}, "kubernetes mc/deployment/lobby"},
		{"kind in capitals", " StatefulSet/world-1.v2 ", "", "",
			Spec{Kind: KindKubernetes, Resource: "statefulset", Namespace: "default", Name: "world-1.v2"}, "kubernetes default/statefulset/world-1.v2"},
		{"bare container", "container", "", "mc-survival",
			Spec{Kind: KindDocker, Name: "mc-survival"}, "docker mc-survival"},
		{"named container", "container/mc_1", "", "other",
			Spec{Kind: KindDocker, Name: "mc_1"}, "docker mc_1"},
		{"webhook", "https://hooks.example/wake?id=1", "", "",
			Spec{Kind: KindWebhook, URL: "https://hooks.example/wake?id=1"}, "webhook https://hooks.example/wake?id=1"},
		{"plain http webhook", "http://127.0.0.1:8080/", "", "",
			Spec{Kind: KindWebhook, URL: "http://127.0.0.1:8080/"}, "webhook http://127.0.0.1:8080/"},
		{"exec", "exec:/usr/local/bin/mc-wake  survival --fast", "", "",
			Spec{Kind: KindExec, Command: []string{"/usr/local/bin/mc-wake", "survival", "--fast"}}, "exec /usr/local/bin/mc-wake survival --fast"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseSpec(tc.text, tc.ns, tc.container)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("ParseSpec(%q) = %+v, want %+v", tc.text, got, tc.want)
			}
			if k := got.Key(); k != tc.key {
				t.Fatalf("Key() = %q, want %q", k, tc.key)
			}
		})
	}
}

func TestParseSpecErrorsNameTheProblem(t *testing.T) {
	for _, tc := range []struct{ name, text, container, want string }{
		{"pod", "pod/survival", "", `wake: unknown kind "pod" (want deployment/<name>, statefulset/<name>, container, https://..., exec:...)`},
		{"bare word", "survival", "", `wake: unknown kind "survival"`},
		{"other scheme", "ftp://files.example/x", "", `wake: unknown kind "ftp"`},
		{"empty", "  ", "", "wake: empty"},
		{"too many parts", "a/b/c/d", "", `wake: unknown kind "a"`},
		{"bad kind with namespace", "mc/service/lobby", "", `wake: unknown kind "service"`},
		{"empty namespace", "/deployment/lobby", "", "empty namespace"},
		{"no name", "deployment/", "", `deployment name "" is not a Kubernetes object name`},
		{"uppercase name", "deployment/Lobby", "", `deployment name "Lobby" is not a Kubernetes object name`},
		{"bad namespace", "My_NS/deployment/lobby", "", `namespace "My_NS" is not a Kubernetes namespace name`},
		{"container without one", "container", "", `"container" names no container here (write container/<name>)`},
		{"bad container name", "container/-x", "", `container name "-x" is not a Docker container name`},
		{"nested container name", "container/a/b", "", `container name "a/b"`},
		{"webhook without host", "https://", "", "needs http:// or https:// and a host"},
		{"exec without command", "exec:  ", "", "exec names no command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseSpec(tc.text, "", tc.container)
			if err == nil {
				t.Fatalf("ParseSpec(%q) = %+v, want an error", tc.text, s)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not contain %q", err, tc.want)
			}
			if !reflect.DeepEqual(s, Spec{}) {
				t.Fatalf("ParseSpec returned %+v with its error, want the zero Spec", s)
			}
		})
	}
}

func TestValidateMappingForm(t *testing.T) {
	if err := (Spec{Kind: "pod"}).Validate(); err == nil || !strings.Contains(err.Error(), `unknown kind "pod"`) {
		t.Fatalf("Validate of kind pod: %v", err)
	}
	if err := (Spec{Kind: KindWebhook, URL: "https://h.example/", Timeout: -1}).Validate(); err == nil {
		t.Fatal("negative timeout accepted")
	}
	if err := (Spec{Kind: KindExec, Command: []string{"wake"}, SleepCommand: []string{"sleep"}}).Validate(); err != nil {
		t.Fatal(err)
	}
}

func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"deployment/a", "ns/statefulset/b", "container", "container/x", "https://h.example/w", "exec:a b", "pod/x", "a/b/c/d", "http://[::1", ""} {
		f.Add(s, "games", "mc")
	}
	f.Fuzz(func(t *testing.T, text, ns, container string) {
		s, err := ParseSpec(text, ns, container)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "wake: ") {
				t.Fatalf("error %q does not start with wake:", err)
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("ParseSpec(%q) = %+v, which does not validate: %v", text, s, err)
		}
		if s.Key() == "" || s.Key() == string(s.Kind) && s.Kind != KindExec {
			t.Fatalf("ParseSpec(%q) = %+v with key %q", text, s, s.Key())
		}
	})
}

func TestParseMapping(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    Mapping
		want Spec
		errs []string // "key: message" of each KeyError, in order
	}{
		{name: "deployment in the scope's namespace", m: Mapping{Keys: []string{"kubernetes"}, Kubernetes: "deployment/mc"},
			want: Spec{Kind: KindKubernetes, Resource: "deployment", Namespace: "games", Name: "mc"}},
		{name: "namespace key wins over the scope", m: Mapping{Keys: []string{"kubernetes", "namespace"}, Kubernetes: "statefulset/mc", Namespace: "other"},
			want: Spec{Kind: KindKubernetes, Resource: "statefulset", Namespace: "other", Name: "mc"}},
		{name: "docker defaults to the scope's container", m: Mapping{Keys: []string{"docker", "timeout"}, Timeout: 5},
			want: Spec{Kind: KindDocker, Name: "self", Timeout: 5}},
		{name: "webhook with secret", m: Mapping{Keys: []string{"webhook", "secret"}, Webhook: "https://h/w", Secret: "k"},
			want: Spec{Kind: KindWebhook, URL: "https://h/w", Secret: "k"}},
		{name: "exec with sleep", m: Mapping{Keys: []string{"exec", "sleep"}, Exec: []string{"/bin/a"}, Sleep: []string{"/bin/b"}},
			want: Spec{Kind: KindExec, Command: []string{"/bin/a"}, SleepCommand: []string{"/bin/b"}}},
		{name: "two engines", m: Mapping{Keys: []string{"webhook", "docker"}}, errs: []string{"want exactly one of kubernetes, docker, webhook, exec, got 2"}},
		{name: "no engine", m: Mapping{Keys: []string{"timeout"}}, errs: []string{"want exactly one of kubernetes, docker, webhook, exec, got 0"}},
		{name: "options of other engines", m: Mapping{Keys: []string{"docker", "secret", "sleep", "namespace"}, Docker: "mc"},
			errs: []string{"secret: only valid with webhook", "sleep: only valid with exec", "namespace: only valid with kubernetes"}},
		{name: "bad docker name", m: Mapping{Keys: []string{"docker"}, Docker: "bad name"}, errs: []string{`docker: wake: container name "bad name"`}},
		{name: "not a workload", m: Mapping{Keys: []string{"kubernetes"}, Kubernetes: "pod/mc"}, errs: []string{`kubernetes: want deployment/<name> or statefulset/<name>, got "pod/mc"`}},
		{name: "bad URL", m: Mapping{Keys: []string{"webhook"}, Webhook: "ftp://x"}, errs: []string{`webhook: webhook URL "ftp://x" needs http:// or https:// and a host`}},
		{name: "empty command", m: Mapping{Keys: []string{"exec"}}, errs: []string{"exec: want a command"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseMapping(tc.m, "games", "self")
			if len(tc.errs) == 0 {
				if err != nil || !reflect.DeepEqual(s, tc.want) {
					t.Fatalf("got %+v %v, want %+v", s, err, tc.want)
				}
				return
			}
			var got []error
			if err != nil {
				got = err.(interface{ Unwrap() []error }).Unwrap()
			}
			if len(got) != len(tc.errs) {
				t.Fatalf("errors %v, want %d: %q", got, len(tc.errs), tc.errs)
			}
			for i, e := range got {
				ke, ok := e.(*KeyError)
				if !ok || !strings.HasPrefix(ke.Error(), tc.errs[i]) {
					t.Errorf("error %d: %v, want a *KeyError starting %q", i, e, tc.errs[i])
				}
			}
		})
	}
}
