module github.com/policy-engine/client-go

go 1.22
