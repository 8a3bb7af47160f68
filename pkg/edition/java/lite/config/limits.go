package config

// A config is parsed while the proxy serves players (reload), and aliases let
// a file of a few hundred bytes name the same subtree millions of times. These
// limits keep Parse linear in what it reads: every alias use is charged again,
// so a hostile file runs into a limit and gets one clear error instead of
// hanging the reload.
const (
	// MaxFileSize is the largest config Parse and Load accept. Real configs
	// are a few KiB; Gate's fully commented reference is under 16 KiB.
	MaxFileSize = 4 << 20

	// maxSteps caps the YAML nodes decoding visits, with every alias and
	// merge key walked again at each use. It is about what the largest file
	// holds without aliases: a typical route takes 10, so tables of 20,000
	// routes fit.
	maxSteps = 1 << 18

	// maxTextBytes caps the bytes of keys and values decoding reads, again
	// counting each alias use: four times the largest file.
	maxTextBytes = 4 * MaxFileSize

	// maxErrors and maxWarnings cap what one Parse reports; the rest is
	// summed up in one line, so that the message stays readable.
	maxErrors   = 100
	maxWarnings = 100

	// maxMessage caps the text of one error or warning.
	maxMessage = 512
)

// budget is what is left of the decoding limits of one Parse.
type budget struct {
	steps, bytes int
	exhausted    bool // the limit error was reported; decoding is winding down
}

func newBudget() budget { return budget{steps: maxSteps, bytes: maxTextBytes} }

// spend takes n node visits from the budget for decoding the value of at.
// When the budget runs out it reports one error and returns false from then
// on, so every walk stops at its next step. The error names at's path and the
// line where its value is written: for an alias that is where it is used, not
// the anchor deep inside which the walk happened to be.
func (d *decoder) spend(n int, at entry) bool {
	d.budget.steps -= n
	return d.check(at)
}

// spendText takes n bytes of keys or values from the budget, like spend.
func (d *decoder) spendText(n int, at entry) bool {
	d.budget.bytes -= n
	return d.check(at)
}

func (d *decoder) check(at entry) bool {
	if d.budget.exhausted {
		return false
	}
	switch {
	case d.budget.steps < 0:
		d.errorf(at.val.Line, at.path, ErrLimit,
			"config too complex: decoding visits more than %d nodes (aliases and merge keys are expanded at every use)", maxSteps)
	case d.budget.bytes < 0:
		d.errorf(at.val.Line, at.path, ErrLimit,
			"config too complex: decoding reads more than %d MiB of keys and values (aliases are expanded at every use)", maxTextBytes>>20)
	default:
		return true
	}
	d.budget.exhausted = true
	return false
}

// clip cuts a message to maxMessage bytes, never inside a UTF-8 sequence.
func clip(msg string) string {
	if len(msg) <= maxMessage {
		return msg
	}
	return clipBytes(msg, maxMessage) + "..."
}

// sizeError reports a file over MaxFileSize. Load reads one byte past the
// limit and no further, so the true size is not known.
func (d *decoder) sizeError() {
	d.errorf(0, "", ErrLimit, "file is larger than the %d MiB limit", MaxFileSize>>20)
}
