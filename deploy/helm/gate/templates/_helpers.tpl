{{/* The release's full name: release name, plus the chart's unless it contains it. */}}
{{- define "gate.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "gate.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "gate.labels" -}}
{{ include "gate.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "gate.serviceAccountName" -}}
{{- default (include "gate.fullname" .) .Values.serviceAccount.name -}}
{{- end -}}

{{/* The discovery RBAC shape: "cluster", "namespace" or "" (none). */}}
{{- define "gate.rbacScope" -}}
{{- if and .Values.discovery.kubernetes.enabled .Values.rbac.create -}}
{{- $scope := .Values.discovery.kubernetes.scope -}}
{{- if not (has $scope (list "cluster" "namespace")) -}}
{{- fail (printf "discovery.kubernetes.scope: unknown %q (want cluster, namespace)" $scope) -}}
{{- end -}}
{{- $scope -}}
{{- end -}}
{{- end -}}

{{/* The wake RBAC shape: "cluster", "namespace" or "" (none). */}}
{{- define "gate.wakeRBACScope" -}}
{{- if and .Values.wake.kubernetes.enabled .Values.rbac.create -}}
{{- $scope := .Values.wake.kubernetes.scope -}}
{{- if not (has $scope (list "cluster" "namespace")) -}}
{{- fail (printf "wake.kubernetes.scope: unknown %q (want cluster, namespace)" $scope) -}}
{{- end -}}
{{- $scope -}}
{{- end -}}
{{- end -}}

{{/* The proxy's config.yml: values' config plus what the chart owns. */}}
{{- define "gate.config" -}}
{{- $cfg := deepCopy .Values.config -}}
{{- $_ := set $cfg "bind" "0.0.0.0:25565" -}}
{{- $k := .Values.discovery.kubernetes -}}
{{- if $k.enabled -}}
{{- $lite := get $cfg "lite" | default dict -}}
{{- $disc := get $lite "discovery" | default dict -}}
{{- $kube := dict "enabled" true -}}
{{- if eq $k.scope "namespace" -}}
{{- $_ := set $kube "namespace" .Release.Namespace -}}
{{- end -}}
{{- if $k.labelSelector -}}
{{- $_ := set $kube "labelSelector" $k.labelSelector -}}
{{- end -}}
{{- $_ := set $disc "kubernetes" $kube -}}
{{- $_ := set $lite "discovery" $disc -}}
{{- $op := get $lite "operator" | default dict -}}
{{- $_ := set $op "configMap" (printf "%s-operator" (include "gate.fullname" .)) -}}
{{- $_ := set $lite "operator" $op -}}
{{- $_ := set $cfg "lite" $lite -}}
{{- end -}}
{{- $api := dict "enabled" true "bind" (printf "0.0.0.0:%d" (int .Values.api.port)) "tokenFile" "/var/run/secrets/gate/token" "publicMetrics" true "probeBind" (printf "0.0.0.0:%d" (int .Values.api.probePort)) -}}
{{- toYaml (dict "config" $cfg "api" $api) -}}
{{- end -}}
