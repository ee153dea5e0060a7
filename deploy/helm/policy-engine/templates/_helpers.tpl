{{- define "policy-engine.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 53 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 53 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "policy-engine.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* Pods of one role: call with (dict "root" $ "role" "api"). */}}
{{- define "policy-engine.selectorLabels" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .role }}
{{- end -}}

{{- define "policy-engine.secretName" -}}
{{- .Values.existingSecret | default (printf "%s-secrets" (include "policy-engine.fullname" .)) -}}
{{- end -}}

{{/*
A stop runs three steps in turn (HTTP connections, queue workers, store and Redis connections), each
given SHUTDOWN_GRACE_SECONDS + 5 s before it is left behind (docs/deployment.md). Kubernetes kills
the pod at terminationGracePeriodSeconds, so that is set above the three steps' total, with 5 s
more for the process to log and exit.
*/}}
{{- define "policy-engine.terminationGracePeriodSeconds" -}}
{{- $grace := int .Values.shutdownGraceSeconds -}}
{{- add (mul 3 (add $grace 5)) 5 -}}
{{- end -}}

{{/* The Prometheus query KEDA scales the workers on: jobs waiting in every queue. */}}
{{- define "policy-engine.queueDepthQuery" -}}
{{- if .Values.keda.prometheus.query -}}
{{- .Values.keda.prometheus.query -}}
{{- else -}}
sum(max by (queue, state) (policy_engine_queue_jobs{namespace="{{ .Release.Namespace }}",service="{{ include "policy-engine.fullname" . }}-worker",state=~"waiting|prioritized"}))
{{- end -}}
{{- end -}}

{{/* Settings every pod reads: call with (dict "root" $ "role" "api"). */}}
{{- define "policy-engine.podSpec" -}}
{{- $root := .root -}}
{{- with $root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
terminationGracePeriodSeconds: {{ include "policy-engine.terminationGracePeriodSeconds" $root }}
securityContext:
  {{- toYaml $root.Values.podSecurityContext | nindent 2 }}
{{- with $root.Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $root.Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $root.Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
# The root filesystem is read-only: DATA_DIR and the temporary directory are the writable places.
volumes:
  - name: data
    emptyDir: {}
  - name: tmp
    emptyDir: {}
{{- end -}}

{{- define "policy-engine.containerCommon" -}}
{{- $root := .root -}}
image: "{{ $root.Values.image.repository }}:{{ $root.Values.image.tag }}"
imagePullPolicy: {{ $root.Values.image.pullPolicy }}
command: ["node", "dist/src/main.js", "--role", {{ .role | quote }}]
envFrom:
  - configMapRef:
      name: {{ include "policy-engine.fullname" $root }}-config
  - secretRef:
      name: {{ include "policy-engine.secretName" $root }}
volumeMounts:
  - name: data
    mountPath: /data
  - name: tmp
    mountPath: /tmp
securityContext:
  allowPrivilegeEscalation: false
  readOnlyRootFilesystem: true
  capabilities:
    drop: ["ALL"]
{{- end -}}
