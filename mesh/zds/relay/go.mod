module ztunnel-harness/zds-relay

go 1.22
