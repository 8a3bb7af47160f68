package engines_test

import (
	"testing"

	"go.minekube.com/gate/internal/enginetest"
)

func TestMain(m *testing.M) { enginetest.Main(m) }
