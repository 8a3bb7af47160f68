module go.minekube.com/gate

go 1.26.0

require (
	github.com/Tnze/go-mc v1.20.2
	github.com/go-logr/logr v1.4.4
	github.com/patrickmn/go-cache v2.1.0+incompatible
	github.com/pires/go-proxyproto v0.15.0
	go.uber.org/goleak v1.3.0
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/sync v0.25.0
)

require github.com/google/uuid v1.3.0 // indirect
