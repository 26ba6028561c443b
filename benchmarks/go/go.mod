module snowflake-c/benchmarks/go

go 1.22

require (
	github.com/bwmarrin/snowflake v0.3.0
	github.com/sony/sonyflake v1.2.0
	github.com/sony/sonyflake/v2 v2.2.0
)
