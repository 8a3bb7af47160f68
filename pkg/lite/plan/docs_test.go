package plan

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

const strategiesDoc = "../../../docs/lite/strategies.md"

// docBlock returns the text after marker in the doc: the fenced block or
// the markdown table that follows it.
func docBlock(t *testing.T, doc, marker string) string {
	t.Helper()
	i := strings.Index(doc, marker+"\n")
	if i < 0 {
		t.Fatalf("strategies.md has no %q", marker)
	}
	rest := doc[i+len(marker)+1:]
	if strings.HasPrefix(rest, "```\n") {
		end := strings.Index(rest[4:], "```\n")
		if end < 0 {
			t.Fatalf("block after %q is not closed", marker)
		}
		return rest[4 : 4+end]
	}
	end := strings.Index(rest, "\n\n")
	if end < 0 {
		end = len(rest)
	}
	return rest[:end+1]
}

// Every generated figure in docs/lite/strategies.md is what the command
// printed next to it prints today.
func TestStrategiesDocIsGenerated(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(strategiesDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	var all []*ScenarioResult
	var table bytes.Buffer
	for i, name := range ScenarioNames() {
		r := scenarioRun(t, name, DefaultSeed)
		all = append(all, r)
		if i > 0 {
			table.WriteString("\n")
		}
		if err := r.WriteTable(&table); err != nil {
			t.Fatal(err)
		}
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, all); err != nil {
		t.Fatal(err)
	}
	checks := map[string]string{
		"<!-- generated: gate lite plan --scenario all --format markdown -->": md.String(),
		"<!-- generated: gate lite plan --scenario all -->":                   table.String(),
	}
	for marker, want := range checks {
		if got := docBlock(t, doc, marker); got != want {
			t.Errorf("strategies.md after %s is out of date; regenerate it with the command next to it:\n%s", marker, want)
		}
	}
}
