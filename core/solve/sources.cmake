# sources of core/solve (listed explicitly)
