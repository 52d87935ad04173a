# sources of core/model (listed explicitly)
