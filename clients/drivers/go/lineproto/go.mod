module mcpconformance/lineproto

go 1.25
