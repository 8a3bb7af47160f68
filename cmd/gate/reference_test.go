package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
)

var update = flag.Bool("update", false, "rewrite docs/lite/config-reference.md from config.yml")

const (
	referenceSource = "../../config.yml"
	referenceDoc    = "../../docs/lite/config-reference.md"
)

// TestConfigReference keeps docs/lite/config-reference.md generated from the
// comments of config.yml, so the two cannot drift. After editing config.yml run
//
//	go test ./cmd/gate -run TestConfigReference -update
func TestConfigReference(t *testing.T) {
	src, err := os.ReadFile(referenceSource)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := config.Parse(src, "config.yml"); err != nil {
		t.Fatalf("config.yml does not load: %v", err)
	}
	got, err := renderReference(src)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(referenceDoc, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(referenceDoc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("docs/lite/config-reference.md is out of date with config.yml; regenerate it with\n" +
			"  go test ./cmd/gate -run TestConfigReference -update")
	}
}

func TestRenderReference(t *testing.T) {
	src := `# Intro line.
config:
  # Where players connect.
  # Default: 0.0.0.0:25565
  bind: 0.0.0.0:25565
  lite:
    routes:
      # First route.
      - host: a.example.com
        # Backends.
        backend: [x:1, 'y:2']
      - host: b.example.com
        backend: z:3
    # Trailing note.
`
	got, err := renderReference([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Intro line.",
		"## `config`",
		"| `config.bind` | `0.0.0.0:25565` | `0.0.0.0:25565` | Where players connect. |",
		"| `config.lite.routes[].host` | - | `a.example.com` | First route. |",
		"| `config.lite.routes[].backend` | - | `[x:1, y:2]` | Backends. |",
		"Trailing note.",
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("reference lacks %q:\n%s", want, got)
		}
	}
	if strings.Count(string(got), "routes[].host") != 1 {
		t.Errorf("a key of the second route example got a second row:\n%s", got)
	}
}

// renderReference turns config.yml into the reference: one table per top-level
// section, one row per key path (the first route documents the route keys),
// descriptions and defaults from the comments above each key.
func renderReference(src []byte) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("parse config.yml: %w", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("config.yml: want a mapping at the top")
	}
	var b bytes.Buffer
	b.WriteString("# Config reference\n\n")
	b.WriteString("<!-- Generated from config.yml by `go test ./cmd/gate -run TestConfigReference -update`. Do not edit. -->\n\n")
	b.WriteString("Every key of `config.yml`, with its default and what it does. Durations are strings such as\n")
	b.WriteString("`5s` or `1m30s`, or bare numbers of milliseconds. The same file, with its comments, is the\n")
	b.WriteString("runnable version of this page.\n\n")
	top := doc.Content[0]
	// The file's opening comment lands on the document, the mapping or its first key.
	intro := commentText(doc.HeadComment + "\n" + top.HeadComment)
	if len(top.Content) > 0 {
		intro = commentText(intro + "\n" + top.Content[0].HeadComment)
	}
	if intro != "" {
		b.WriteString(intro + "\n\n")
	}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		fmt.Fprintf(&b, "## `%s`\n\n", k.Value)
		if v.Kind == yaml.ScalarNode { // a top-level key of its own: one row
			desc, def := describeKey(k.HeadComment)
			b.WriteString("| Key | Default | In config.yml | Description |\n|---|---|---|---|\n")
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n\n", k.Value, cell(def), cell(shown(v)), escapeCell(desc))
			continue
		}
		if i > 0 {
			if d, _ := describeKey(k.HeadComment); d != "" {
				b.WriteString(d + "\n\n")
			}
		}
		b.WriteString("| Key | Default | In config.yml | Description |\n|---|---|---|---|\n")
		var notes []string
		rows(&b, &notes, k.Value, v, map[string]bool{})
		b.WriteString("\n")
		for _, n := range notes {
			b.WriteString(n + "\n\n")
		}
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// rows writes a row for every key under node; sequence items share the path
// "name[]" and only the first item that has a key documents it.
func rows(b *bytes.Buffer, notes *[]string, path string, node *yaml.Node, seen map[string]bool) {
	switch node.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(node.Content); i += 2 {
			k, v := node.Content[i], node.Content[i+1]
			p := path + "." + k.Value
			if !seen[p] {
				seen[p] = true
				desc, def := describeKey(k.HeadComment)
				fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", p, cell(def), cell(shown(v)), escapeCell(desc))
			}
			rows(b, notes, p, v, seen)
			if n := commentText(v.FootComment + "\n" + k.FootComment); n != "" {
				*notes = append(*notes, n)
			}
		}
		if n := commentText(node.FootComment); n != "" {
			*notes = append(*notes, n)
		}
	case yaml.SequenceNode:
		for _, item := range node.Content {
			// A comment above "- key:" belongs to the item; it describes the first key.
			if item.Kind == yaml.MappingNode && len(item.Content) > 0 && item.HeadComment != "" {
				first := item.Content[0]
				first.HeadComment = item.HeadComment + "\n" + first.HeadComment
			}
			rows(b, notes, path+"[]", item, seen)
		}
	}
}

// defaultRE finds a "Default: X." sentence, optionally qualified as in
// "Default (also when empty): X."; X ends at a full stop followed by a space.
var defaultRE = regexp.MustCompile(`Default(?: \(([^)]*)\))?: (.+?)(?:\.\s|\.$|$)`)

// describeKey splits a key's comment into its description and its default.
func describeKey(comment string) (desc, def string) {
	text := strings.Join(strings.Split(commentText(comment), "\n"), " ")
	m := defaultRE.FindStringSubmatchIndex(text)
	if m == nil {
		return text, ""
	}
	def = text[m[4]:m[5]]
	if m[2] >= 0 {
		def += " (" + text[m[2]:m[3]] + ")"
	}
	return strings.TrimSpace(text[:m[0]] + text[m[1]:]), def
}

// commentText strips the "# " of each comment line and drops empty lines.
func commentText(c string) string {
	var out []string
	for _, l := range strings.Split(c, "\n") {
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "#"))
		if l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func cell(v string) string {
	if v == "" {
		return "-"
	}
	return "`" + strings.ReplaceAll(strings.ReplaceAll(v, "`", ""), "|", `\|`) + "`"
}

// shown renders a scalar or a list of scalars as written in config.yml, cut short.
func shown(v *yaml.Node) string {
	var s string
	switch v.Kind {
	case yaml.ScalarNode:
		s = v.Value
		if s == "" {
			s = "''"
		}
	case yaml.SequenceNode:
		var items []string
		for _, it := range v.Content {
			if it.Kind != yaml.ScalarNode {
				return ""
			}
			items = append(items, it.Value)
		}
		s = "[" + strings.Join(items, ", ") + "]"
	}
	s = strings.ReplaceAll(strings.TrimSpace(s), "\n", " ")
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

func escapeCell(s string) string {
	return strings.ReplaceAll(s, "|", `\|`)
}

func TestDescribeKey(t *testing.T) {
	tests := []struct {
		name, comment, desc, def string
	}{
		{"default on its own line", "# Where players connect.\n# Default: 0.0.0.0:25565", "Where players connect.", "0.0.0.0:25565"},
		{"default after text on a line", "# 0 closes them at once. Default: 10s", "0 closes them at once.", "10s"},
		{"qualified default followed by more text", "# Peers. Default (also when empty): the private\n# networks. Never list 0.0.0.0/0.",
			"Peers. Never list 0.0.0.0/0.", "the private networks (also when empty)"},
		{"no default", "# Backends.", "Backends.", ""},
		{"default with a full stop", "# Default: none (the ping fails).", "", "none (the ping fails)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			desc, def := describeKey(tt.comment)
			if desc != tt.desc || def != tt.def {
				t.Fatalf("got (%q, %q), want (%q, %q)", desc, def, tt.desc, tt.def)
			}
		})
	}
}
