package mctest

// TB is the part of testing.TB the fixtures use; *testing.T and *testing.B satisfy it.
// Declared here so that tools can link the package without importing testing.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Cleanup(func())
}
