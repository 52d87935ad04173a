# sources of core/scene (listed explicitly)
