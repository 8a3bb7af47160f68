package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
)

var (
	shBlock   = regexp.MustCompile("(?s)```sh\n(.*?)```(\n\n```\n(.*?)```)?")
	inlineCmd = regexp.MustCompile("`(gate lite plan [^`]*)`")
)

// Every `gate lite plan` command on docs/lite/strategies.md runs as shown from
// the repository root, against the shipped config.yml; where the page shows a
// command's output right after it, the output is what the command prints.
func TestStrategiesPageCommandsRun(t *testing.T) {
	page, err := os.ReadFile("../../docs/lite/strategies.md")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir("../..")
	type example struct{ cmd, output string }
	var examples []example
	for _, m := range shBlock.FindAllStringSubmatch(string(page), -1) {
		lines := strings.Split(strings.ReplaceAll(m[1], "\\\n", " "), "\n")
		var cmds []string
		for _, l := range lines {
			if l = strings.TrimSpace(strings.SplitN(l, "#", 2)[0]); strings.HasPrefix(l, "gate lite plan") {
				cmds = append(cmds, l)
			}
		}
		for i, c := range cmds {
			out := ""
			if i == len(cmds)-1 {
				out = m[3]
			}
			examples = append(examples, example{c, out})
		}
	}
	for _, m := range inlineCmd.FindAllStringSubmatch(string(page), -1) {
		if !strings.Contains(m[1], "NAME") && !strings.HasSuffix(m[1], " N") {
			examples = append(examples, example{cmd: m[1]})
		}
	}
	if len(examples) < 5 {
		t.Fatalf("found only %d commands on the page", len(examples))
	}
	for _, ex := range examples {
		t.Run(ex.cmd, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := run(strings.Fields(ex.cmd)[1:], &out, &errOut); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			if ex.output != "" && out.String() != ex.output {
				t.Fatalf("the page shows\n%s\nthe command prints\n%s", ex.output, out.String())
			}
		})
	}
}
