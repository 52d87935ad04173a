# sources of core/mesh (listed explicitly)
