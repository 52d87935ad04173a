# sources of core/scene (listed explicitly)
list(APPEND SIM_CORE_SOURCES
  core/scene/json_locate.c
  core/scene/scene_check.c
  core/scene/scene_defaults.c
  core/scene/scene_error.c
  core/scene/scene_json_read.c
  core/scene/scene_load.c
  core/scene/scene_load_body.c
  core/scene/scene_load_contact.c
  core/scene/scene_override.c
  core/scene/scene_to_json.c
  core/scene/scene_validate.c
  core/scene/scene_validate_contact.c)
